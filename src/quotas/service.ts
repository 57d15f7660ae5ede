import type { Logger } from 'pino';
import { AppError } from '../core/errors';
import { QuotaGate, QuotaReport, QuotaService, QuotaStore, UsageCharge } from './port';
import { Amounts, Limits, monthEnd, monthOf, QUOTA_NAMES, QuotaName } from './quota';
import { quotaExceeded } from './refusal';

export interface QuotaDeps {
  store: QuotaStore;
  now: () => number;
  logger: Logger;
  /** Counts each refusal by quota (openpie_quota_refusals_total). */
  onRefused?: (quota: QuotaName) => void;
  /** How often charges made with `spend` and `record` are saved, in ms. */
  flushMs?: number;
}

/** Counters of one project and month, by quota. */
type Counters = Record<QuotaName, number>;

const zero = (): Record<QuotaName, number> => ({ shadowOps: 0, expressionRuns: 0, triggerRuns: 0, messages: 0, apiCalls: 0 });
/** The charged quotas of `amounts` (a plain loop: it runs several times for every metered call). */
function entries(amounts: Amounts): (readonly [QuotaName, number])[] {
  const found: (readonly [QuotaName, number])[] = [];
  for (const q of QUOTA_NAMES) {
    const amount = amounts[q];
    if (amount) found.push([q, amount]);
  }
  return found;
}

/**
 * The quotas of every project (docs/automation.md "Quotas"). Checks are made against counters held in memory, which start
 * from the store and take every charge at once, so two concurrent writes can never both pass a nearly spent
 * quota. Shadow writes store their charge in their own transaction (`reserve`, then ShadowCommit.charge); other
 * charges are saved every `flushMs` and on close. One process owns the counters (the embedded broker is one too).
 */
export function createQuotaService({ store, now, logger, onRefused, flushMs = 1000 }: QuotaDeps): QuotaService {
  /** Everything charged, by project and month: what the store holds plus what is held or not yet saved. */
  const totals = new Map<string, Counters>();
  const loading = new Map<string, Promise<Counters>>();
  /** Charged with `spend`/`record` and not yet saved, whether or not the totals are loaded. */
  const unsaved = new Map<string, Counters>();
  const limits = new Map<string, Limits>();
  const limitsLoading = new Map<string, Promise<Limits>>();
  let saving: Promise<void> = Promise.resolve();
  let closed = false;

  const keyOf = (projectid: string, month: string) => `${projectid}\u0000${month}`;

  function totalsOf(projectid: string, month: string): Promise<Counters> {
    const key = keyOf(projectid, month);
    const known = totals.get(key);
    if (known) return Promise.resolve(known);
    let pending = loading.get(key);
    if (!pending) {
      pending = (async () => {
        // Saves skip a month while it loads, so its unsaved charges are counted exactly once: in `unsaved` here.
        await saving;
        const stored = await store.readUsage(projectid, month);
        const extra = unsaved.get(key);
        const loaded = zero();
        for (const q of QUOTA_NAMES) loaded[q] = (stored[q] ?? 0) + (extra?.[q] ?? 0);
        totals.set(key, loaded);
        return loaded;
      })().finally(() => loading.delete(key));
      loading.set(key, pending);
    }
    return pending;
  }

  function limitsOf(projectid: string): Promise<Limits> {
    const known = limits.get(projectid);
    if (known) return Promise.resolve(known);
    let pending = limitsLoading.get(projectid);
    if (!pending) {
      pending = store
        .getLimits(projectid)
        .then((l) => {
          limits.set(projectid, l);
          return l;
        })
        .finally(() => limitsLoading.delete(projectid));
      limitsLoading.set(projectid, pending);
    }
    return pending;
  }

  /** Throws QUOTA_EXCEEDED when `amounts` would take a counter past its limit; then charges them in memory. */
  async function take(projectid: string, amounts: Amounts, at: number): Promise<{ counters: Counters; month: string }> {
    const month = monthOf(at);
    const [counters, limit] = await Promise.all([totalsOf(projectid, month), limitsOf(projectid)]);
    for (const [q, amount] of entries(amounts)) {
      const max = limit[q];
      if (max !== undefined && counters[q] + amount > max) throw exceeded(projectid, q, max, counters[q], month, at);
    }
    add(counters, amounts);
    return { counters, month };
  }

  function exceeded(projectid: string, quota: QuotaName, limit: number, used: number, month: string, at: number): AppError {
    onRefused?.(quota);
    return quotaExceeded(projectid, quota, limit, used, month, at);
  }

  function add(counters: Counters, amounts: Amounts, sign = 1): void {
    for (const [q, amount] of entries(amounts)) counters[q] += sign * amount;
  }

  function markUnsaved(projectid: string, month: string, amounts: Amounts): void {
    const key = keyOf(projectid, month);
    let counters = unsaved.get(key);
    if (!counters) unsaved.set(key, (counters = zero()));
    add(counters, amounts);
  }

  /** Saves every unsaved charge; one save at a time. Months other than the current one leave memory once saved. */
  function save(): Promise<void> {
    saving = saving.then(async () => {
      const charges: UsageCharge[] = [];
      for (const [key, counters] of unsaved) {
        if (loading.has(key)) continue;
        const amounts = Object.fromEntries(entries(counters)) as Amounts;
        const [projectid, month] = key.split('\u0000');
        if (Object.keys(amounts).length > 0) charges.push({ projectid, month, amounts });
      }
      if (charges.length > 0) {
        try {
          await store.addUsage(charges);
        } catch (err) {
          logger.warn({ err }, 'quota counters not saved; retrying');
          return;
        }
        for (const c of charges) add(unsaved.get(keyOf(c.projectid, c.month))!, c.amounts, -1);
      }
      const current = monthOf(now());
      for (const [key, counters] of unsaved) if (entries(counters).length === 0) unsaved.delete(key);
      for (const key of totals.keys()) if (!key.endsWith(`\u0000${current}`) && !unsaved.has(key)) totals.delete(key);
    });
    return saving;
  }

  const timer = setInterval(() => void save(), flushMs);
  timer.unref();

  const gate: QuotaGate = {
    async reserve(projectid, amounts, at) {
      const { counters, month } = await take(projectid, amounts, at);
      let held = true;
      return {
        charge: { projectid, month, amounts },
        release() {
          if (held) add(counters, amounts, -1);
          held = false;
        },
      };
    },
    async spend(projectid, amounts, at) {
      const { month } = await take(projectid, amounts, at);
      markUnsaved(projectid, month, amounts);
    },
    spendNow(projectid, amounts, at) {
      const month = monthOf(at);
      const counters = totals.get(keyOf(projectid, month));
      const limit = limits.get(projectid);
      if (!counters || !limit) {
        gate.record(projectid, amounts, at);
        void Promise.all([totalsOf(projectid, month), limitsOf(projectid)]).catch((err: unknown) => logger.warn({ err }, 'quota counters not read'));
        return undefined;
      }
      for (const [q, amount] of entries(amounts)) {
        const max = limit[q];
        if (max !== undefined && counters[q] + amount > max) return exceeded(projectid, q, max, counters[q], month, at);
      }
      add(counters, amounts);
      markUnsaved(projectid, month, amounts);
      return undefined;
    },
    record(projectid, amounts, at) {
      const month = monthOf(at);
      markUnsaved(projectid, month, amounts);
      const counters = totals.get(keyOf(projectid, month));
      if (counters) add(counters, amounts);
      // Not loaded: the totals will count it when they load, from `unsaved`.
    },
  };

  return {
    ...gate,

    async report(projectid: string, month = monthOf(now())): Promise<QuotaReport> {
      const [counters, limit] = await Promise.all([totalsOf(projectid, month), limitsOf(projectid)]);
      const quotas = Object.fromEntries(QUOTA_NAMES.map((q) => [q, { used: counters[q], limit: limit[q] ?? null }]));
      return { projectid, month, resetsAt: new Date(monthEnd(month)).toISOString(), quotas: quotas as QuotaReport['quotas'] };
    },

    /** Replaces the limits of a project; a quota left out is unlimited. */
    async setLimits(projectid: string, next: Limits): Promise<void> {
      await store.setLimits(projectid, next);
      limits.set(projectid, next);
    },

    /** Saves every unsaved charge now. */
    flush: save,

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      await save();
    },
  };
}

export type { QuotaReport, QuotaService };

import type { Logger } from 'pino';
import { ChangeFeed } from '../cluster/port';
import { createReadCache } from '../cluster/read-cache';
import { AppError } from '../core/errors';
import { Counters, othersIn, ownIn, quotasIn, zeroCounters } from './grants';
import { createMonthGrants, Month, monthFrom } from './month-grants';
import { QuotaLedger, QuotaLimitStore, QuotaReport, QuotaService } from './port';
import { Amounts, Limits, monthEnd, monthOf, QUOTA_NAMES, QuotaName } from './quota';
import { quotaExceeded } from './refusal';

export interface QuotaDeps {
  limits: QuotaLimitStore;
  ledger: QuotaLedger;
  /** This node's NODE_ID: its rows of a shared ledger (registration keeps it unique, src/cluster/node-registration.ts). */
  node: string;
  changes: ChangeFeed;
  now: () => number;
  logger: Logger;
  /** Counts each refusal by quota (openpie_quota_refusals_total). */
  onRefused?: (quota: QuotaName) => void;
  /** How often this node's counts are saved, in ms. */
  flushMs?: number;
  /** How long limits are used before they are read again, in ms (a change notice drops them at once). */
  limitsMaxAgeMs: number;
}

const add = (counters: Counters, amounts: Amounts, sign = 1) => {
  for (const [q, n] of quotasIn(amounts)) counters[q] += sign * n;
};
/** What a save stores of a month: every charge but the reservations whose writes are not committed yet. */
const settled = (m: Month, q: QuotaName) => m.used[q] - m.held[q];

/**
 * The quotas of every project (docs/automation.md "Quotas"), over a ledger (QuotaLedger). Each node counts its own
 * charges in memory, checks every charge there at once (so concurrent requests never pass a nearly spent quota
 * together), and saves its counts every `flushMs` and on close as absolute values. For a limited quota a node first
 * takes a grant of the limit and charges from it in memory; what it did not spend it gives back when limits change
 * and when it stops.
 *
 * A node alone (STORE=sqlite, QuotaLedger.singleNode) is granted the whole limit at once, so its checks are plain
 * comparisons with the limit, and its shadow writes add their charge in their own transaction (Reservation.charge).
 * Nodes sharing a ledger (STORE=cassandra) take blocks of it (a compare-and-set over the project's month, so the
 * nodes' grants never add up past the limit) and save shadow charges with the rest once the write is committed.
 *
 * Charges that can wait for a grant (reserve, spend: shadow writes, REST calls, MQTT CONNECT, triggers) never pass a
 * limit. `spendNow` (MQTT subscriptions and publishes) cannot wait: past its grant a node of a cluster charges on
 * credit, at most one block, within what it last read was left, and takes the grant in the background: if the other
 * nodes took what was left meanwhile, the limit is passed by at most that block per node.
 */
export function createQuotaService(deps: QuotaDeps): QuotaService {
  const { ledger, changes, now, logger, onRefused, flushMs = 1000 } = deps;
  const alone = ledger.singleNode !== undefined;
  const node = ledger.singleNode ?? deps.node;
  const months = new Map<string, Month>();
  const loading = new Map<string, Promise<Month>>();
  /** Charged (`record`, `spendNow`) before the month was read: counted in when it is. */
  const pending = new Map<string, Counters>();
  const limitCache = createReadCache<Limits>({ maxAgeMs: deps.limitsMaxAgeMs, now });
  let saving: Promise<void> = Promise.resolve();
  let closed = false;
  const grants = createMonthGrants({ ledger, node, logger, wholeLimit: alone });

  const keyOf = (projectid: string, month: string) => `${projectid}\u0000${month}`;
  const limitsOf = (projectid: string) => limitCache.get(projectid, () => deps.limits.getLimits(projectid));
  const peekLimits = (projectid: string) => limitCache.peek(projectid, () => deps.limits.getLimits(projectid));

  function monthOfProject(projectid: string, month: string): Promise<Month> {
    const key = keyOf(projectid, month);
    const known = months.get(key);
    if (known) return Promise.resolve(known);
    let load = loading.get(key);
    if (!load) {
      load = (async () => {
        const m = monthFrom(projectid, month, await ledger.read(projectid, month), node);
        add(m.used, pending.get(key) ?? {});
        pending.delete(key);
        months.set(key, m);
        return m;
      })().finally(() => loading.delete(key));
      loading.set(key, load);
    }
    return load;
  }

  function refuse(m: Month, q: QuotaName, limit: number, at: number): AppError {
    onRefused?.(q);
    return quotaExceeded(m.projectid, q, limit, Math.min(limit, grants.claimedBy(m, q)), m.month, at);
  }

  /** Takes `amounts` once every limited quota's grant covers them; throws QUOTA_EXCEEDED when one cannot. */
  async function take(projectid: string, amounts: Amounts, at: number): Promise<Month> {
    const [m, limits] = await Promise.all([monthOfProject(projectid, monthOf(at)), limitsOf(projectid)]);
    for (;;) {
      const short = quotasIn(amounts).filter(([q, n]) => limits[q] !== undefined && !grants.covered(m, q, n, limits[q]!));
      if (short.length === 0) break;
      for (const [q, n] of short) {
        const limit = limits[q]!;
        // Held under a higher limit: give it back first, so that the lower one counts it.
        if (m.others.claimed[q] + m.granted[q] > limit) await grants.giveBack(m);
        if (!(await grants.grant(m, q, n, limit))) throw refuse(m, q, limit, at);
      }
      // Charges of this node taken meanwhile may have spent the new grant: look again.
    }
    add(m.used, amounts);
    grants.topUp(m, limits);
    return m;
  }

  /** Saves every month whose settled counts changed; one save at a time. Past months leave memory once saved. */
  function save(): Promise<void> {
    saving = saving.then(async () => {
      // Charged before their month was read: read it, so that they are saved with the rest.
      await Promise.all(
        [...pending.keys()].map((key) => {
          const [projectid, month] = key.split('\u0000');
          return monthOfProject(projectid, month).catch((err: unknown) => logger.warn({ err }, 'quota counters not read'));
        }),
      );
      const counts: { projectid: string; month: string; quota: QuotaName; used: number }[] = [];
      for (const m of months.values()) {
        for (const q of QUOTA_NAMES) if (settled(m, q) !== m.saved[q]) counts.push({ projectid: m.projectid, month: m.month, quota: q, used: settled(m, q) });
      }
      if (counts.length > 0) {
        try {
          await ledger.saveUsed(node, counts);
        } catch (err) {
          logger.warn({ err }, 'quota counters not saved; retrying');
          return;
        }
        for (const c of counts) months.get(keyOf(c.projectid, c.month))!.saved[c.quota] = c.used;
      }
      const current = monthOf(now());
      for (const [key, m] of months) {
        if (m.month !== current && QUOTA_NAMES.every((q) => m.held[q] === 0 && m.used[q] === m.saved[q])) months.delete(key);
      }
    });
    return saving;
  }

  const timer = setInterval(() => void save(), flushMs);
  timer.unref();

  /** Limits changed on some node: read them again, and give back what was granted under the old ones. */
  function limitsChanged(projectid: string): void {
    limitCache.invalidate(projectid);
    for (const m of months.values()) if (m.projectid === projectid) void grants.giveBack(m);
  }
  changes.listen((notice) => {
    if (notice === 'all') limitCache.clear();
    else if (notice.kind === 'quota-limits') limitsChanged(notice.key);
  });

  const service: QuotaService = {
    async reserve(projectid, amounts, at) {
      const m = await take(projectid, amounts, at);
      add(m.held, amounts);
      let open = true;
      return {
        // A node alone: the write's transaction adds the charge to its ledger rows, as a save would have.
        charge: alone ? { projectid, month: m.month, amounts } : undefined,
        committed() {
          if (!open) return;
          open = false;
          add(m.held, amounts, -1);
          if (alone) add(m.saved, amounts);
        },
        release() {
          if (!open) return;
          open = false;
          add(m.held, amounts, -1);
          add(m.used, amounts, -1);
        },
      };
    },

    async spend(projectid, amounts, at) {
      await take(projectid, amounts, at);
    },

    spendNow(projectid, amounts, at) {
      const month = monthOf(at);
      const m = months.get(keyOf(projectid, month));
      const limits = peekLimits(projectid)?.value;
      if (!m || !limits) {
        service.record(projectid, amounts, at);
        return undefined;
      }
      const credit: [QuotaName, number, number][] = [];
      for (const [q, n] of quotasIn(amounts)) {
        const limit = limits[q];
        if (limit === undefined || grants.covered(m, q, n, limit)) continue;
        if (m.others.claimed[q] + m.granted[q] > limit) void grants.giveBack(m);
        const allowed = grants.onCredit(m, q, n, limit);
        if (allowed !== true) return allowed || refuse(m, q, limit, at);
        credit.push([q, n, limit]);
      }
      add(m.used, amounts);
      for (const [q, n, limit] of credit) void grants.grantInBackground(m, q, n, limit);
      grants.topUp(m, limits);
      return undefined;
    },

    record(projectid, amounts, at) {
      const month = monthOf(at);
      const key = keyOf(projectid, month);
      const m = months.get(key);
      if (m) return add(m.used, amounts);
      let counters = pending.get(key);
      if (!counters) pending.set(key, (counters = zeroCounters()));
      add(counters, amounts);
      peekLimits(projectid);
      monthOfProject(projectid, month).catch((err: unknown) => logger.warn({ err }, 'quota counters not read'));
    },

    async report(projectid, month = monthOf(now())) {
      const [snapshot, limits] = await Promise.all([ledger.read(projectid, month), deps.limits.getLimits(projectid)]);
      const m = months.get(keyOf(projectid, month));
      if (m) grants.refresh(m, snapshot);
      const others = othersIn(snapshot, node).used;
      const own = m ? m.used : ownIn(snapshot, node).used;
      const extra = pending.get(keyOf(projectid, month)) ?? zeroCounters();
      const quotas = Object.fromEntries(QUOTA_NAMES.map((q) => [q, { used: others[q] + own[q] + (m ? 0 : extra[q]), limit: limits[q] ?? null }]));
      return { projectid, month, resetsAt: new Date(monthEnd(month)).toISOString(), quotas: quotas as QuotaReport['quotas'] };
    },

    async setLimits(projectid, limits) {
      try {
        await deps.limits.setLimits(projectid, limits);
      } finally {
        changes.announce({ kind: 'quota-limits', key: projectid });
        limitsChanged(projectid);
      }
    },

    flush: save,

    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      await Promise.all([...months.values()].map((m) => grants.giveBack(m)));
      await save();
    },
  };
  return service;
}

export type { QuotaReport, QuotaService };

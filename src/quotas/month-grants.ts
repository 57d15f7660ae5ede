import type { Logger } from 'pino';
import { AppError } from '../core/errors';
import { blockFor, Counters, GRANTS, othersIn, ownIn, zeroCounters } from './grants';
import { LedgerSnapshot, QuotaLedger } from './port';
import { Limits, QUOTA_NAMES, QuotaName } from './quota';

/** One project's month as this node knows it. */
export interface Month {
  readonly projectid: string;
  readonly month: string;
  /** This node's charges (absolute), reservations not yet settled included: what checks count. */
  used: Counters;
  /** Reserved by writes whose outcome is not known yet: not saved until they are committed. */
  held: Counters;
  /** What this node's ledger rows hold, as far as it knows. */
  saved: Counters;
  /** What this node may charge up to without asking again. */
  granted: Counters;
  /** The size of each quota's last grant (0: none yet), for topping up before the grant runs out. */
  lastBlock: Counters;
  /** What the other nodes held and used, as last read. */
  others: { claimed: Counters; used: Counters };
  /** Grants of this partition, one at a time from this node (each reads, then compares-and-sets on the version). */
  queue: Promise<unknown>;
  /** Quotas being topped up in the background. */
  topping: Set<QuotaName>;
  /** Why the last grant taken in the background failed (the ledger unreachable), until one succeeds. */
  grantFailure?: AppError;
}

/** A month as read from the ledger: this node's own rows are where a restart on the same NODE_ID takes up. */
export function monthFrom(projectid: string, month: string, snapshot: LedgerSnapshot, node: string): Month {
  const own = ownIn(snapshot, node);
  return {
    projectid,
    month,
    used: own.used,
    held: zeroCounters(),
    saved: { ...own.used },
    granted: own.granted,
    lastBlock: zeroCounters(),
    others: othersIn(snapshot, node),
    queue: Promise.resolve(),
    topping: new Set(),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface MonthGrantsDeps {
  ledger: QuotaLedger;
  node: string;
  logger: Logger;
  /** One node's ledger (QuotaLedger.singleNode): a grant is all that is left of the limit, and is never topped up. */
  wholeLimit: boolean;
}

/**
 * How a node takes, tops up and gives back its blocks of a project's limits (docs/automation.md "Quotas"): every
 * change of a grant reads the project's month and compares-and-sets on its version (QuotaLedger.setGranted), one at a
 * time per month on this node. A node alone takes the whole limit at once: it then checks each charge against the
 * limit itself, as if there were no grants.
 */
export function createMonthGrants({ ledger, node, logger, wholeLimit }: MonthGrantsDeps) {
  /** The grant to take when `need` more is wanted and `room` is left: 0 when room is short of need. */
  const sizeOf = (room: number, need: number) => (wholeLimit ? (room < need ? 0 : room) : blockFor(room, need));

  /** Runs `work` after the grant changes of `m` already queued on this node. */
  function serially<T>(m: Month, work: () => Promise<T>): Promise<T> {
    const run = m.queue.then(work, work);
    m.queue = run.catch(() => undefined);
    return run;
  }

  async function read(m: Month): Promise<number> {
    const snapshot = await ledger.read(m.projectid, m.month);
    m.others = othersIn(snapshot, node);
    return snapshot.version;
  }

  /**
   * Whether this node may charge `n` more of `q` from its grant: the grant covers it, and was taken under this limit
   * (with the others' grants as last read, it fits in the limit: when it does not, the limit was lowered since).
   */
  const covered = (m: Month, q: QuotaName, n: number, limit: number) =>
    m.used[q] + n <= m.granted[q] && m.others.claimed[q] + m.granted[q] <= limit;

  /**
   * Makes this node's grant of `q` cover what it used plus `want` (a block more when room allows). False when the
   * limit has no room for it. Throws BACKEND_UNAVAILABLE when other nodes keep winning the compare-and-set.
   */
  function grant(m: Month, q: QuotaName, want: number, limit: number): Promise<boolean> {
    return serially(m, async () => {
      for (let attempt = 0; attempt < GRANTS.attempts; attempt++) {
        if (covered(m, q, want, limit)) return true;
        const version = await read(m);
        if (covered(m, q, want, limit)) return true;
        const mine = Math.max(m.used[q], m.granted[q]);
        const need = m.used[q] + want - mine;
        const block = sizeOf(limit - m.others.claimed[q] - mine, need);
        // need <= 0: the grant covers it but was taken under a higher limit (give it back first).
        if (need <= 0 || block === 0) return false;
        const next = mine + block;
        if (await ledger.setGranted(m.projectid, m.month, q, node, next, version)) {
          m.granted[q] = next;
          m.lastBlock[q] = block;
          m.grantFailure = undefined;
          return true;
        }
        await sleep(Math.random() * 5 * (attempt + 1));
      }
      throw new AppError('BACKEND_UNAVAILABLE', 'quota counters are too busy (other nodes kept changing them); try again');
    });
  }

  /** Takes a grant without waiting for it; a failure is remembered for the charges on credit that follow. */
  function grantInBackground(m: Month, q: QuotaName, want: number, limit: number): Promise<unknown> {
    return grant(m, q, want, limit).catch((err: unknown) => {
      m.grantFailure =
        err instanceof AppError ? err : new AppError('BACKEND_UNAVAILABLE', 'quota counters cannot be reached; try again later');
      logger.warn({ err, projectid: m.projectid }, 'quota grant not taken');
    });
  }

  return {
    covered,
    grant,
    grantInBackground,

    /**
     * Whether `n` of `q` may be charged past the grant without waiting for the next (MQTT publishes): a node may go
     * at most one block past its grant, within the room it last read was left. False when the limit has no room;
     * the failure of the last grant when the node is past that credit because grants fail.
     */
    onCredit(m: Month, q: QuotaName, n: number, limit: number): boolean | AppError {
      const mine = Math.max(m.used[q], m.granted[q]);
      const block = sizeOf(limit - m.others.claimed[q] - mine, m.used[q] + n - mine);
      if (block === 0) return false;
      // A node alone: the room is all the credit it needs. Past the credit while grants fail: the counters are out of
      // reach, which is no spent quota.
      if (!wholeLimit && m.used[q] + n - m.granted[q] > block) return m.grantFailure ?? false;
      return true;
    },

    /**
     * Gives back what this node was granted and did not use, so that other nodes (or a lower limit) may have it.
     * The grant shrinks here first, so that this node's charges meanwhile wait for a new grant instead of spending
     * what is being given back; it is restored if the ledger refuses.
     */
    giveBack(m: Month): Promise<void> {
      return serially(m, async () => {
        for (let attempt = 0; attempt < GRANTS.attempts; attempt++) {
          const spare = QUOTA_NAMES.find((q) => m.granted[q] > m.used[q]);
          if (spare === undefined) return;
          const version = await read(m);
          const before = m.granted[spare];
          const next = m.used[spare];
          m.granted[spare] = next;
          const given = await ledger.setGranted(m.projectid, m.month, spare, node, next, version).catch((err: unknown) => {
            m.granted[spare] = before;
            throw err;
          });
          if (given) m.lastBlock[spare] = 0;
          else m.granted[spare] = before;
        }
      }).catch((err: unknown) => logger.warn({ err, projectid: m.projectid }, 'unused quota grant not given back'));
    },

    /** Tops grants up in the background once less than half of the last block is left (grants of 1: none). */
    topUp(m: Month, limits: Limits): void {
      if (wholeLimit) return;
      for (const q of QUOTA_NAMES) {
        const limit = limits[q];
        const half = Math.ceil(m.lastBlock[q] / 2);
        if (limit === undefined || m.topping.has(q) || m.lastBlock[q] <= 1 || m.granted[q] - m.used[q] >= half) continue;
        m.topping.add(q);
        void grantInBackground(m, q, half, limit).finally(() => m.topping.delete(q));
      }
    },

    /** What the nodes hold of `q` as this node last read it: the `used` a refusal reports (a node alone: its count). */
    claimedBy: (m: Month, q: QuotaName) => m.others.claimed[q] + (wholeLimit ? m.used[q] : Math.max(m.used[q], m.granted[q])),

    /** Reads the month again, for the others' counts (a report). */
    refresh: (m: Month, snapshot: LedgerSnapshot) => void (m.others = othersIn(snapshot, node)),
  };
}

import { LedgerSnapshot } from './port';
import { QUOTA_NAMES, QuotaName } from './quota';

/**
 * How a node of a cluster takes blocks of a project's limit (docs/automation.md "Quotas"): a block is at most
 * 1/BLOCK_SHARE of what is left and at most MAX_BLOCK, never less than the charge that asks for it. Small blocks
 * near the limit keep nodes from holding what another needs; a share of what is left keeps the cluster from
 * passing the limit by more than one block per node where a charge cannot wait (MQTT publishes).
 */
export const GRANTS = {
  /** A block is at most this part of what is left of a limit. */
  blockShare: 16,
  /** Nor more than this, whatever is left. */
  maxBlock: 1000,
  /** Tries of a grant that loses its compare-and-set to other nodes, before a 503. */
  attempts: 20,
} as const;

export type Counters = Record<QuotaName, number>;
export const zeroCounters = (): Counters => ({ shadowOps: 0, expressionRuns: 0, triggerRuns: 0, messages: 0, apiCalls: 0 });

/** The block to take when `need` more is wanted and `room` is left: 0 when room is short of need. */
export function blockFor(room: number, need: number): number {
  if (room < need) return 0;
  return Math.min(room, Math.max(need, Math.min(GRANTS.maxBlock, Math.floor(room / GRANTS.blockShare))));
}

/** What the other nodes hold of each quota (the larger of what they used and were granted), and what they used. */
export function othersIn(snapshot: LedgerSnapshot, node: string): { claimed: Counters; used: Counters } {
  const claimed = zeroCounters();
  const used = zeroCounters();
  for (const e of snapshot.entries) {
    if (e.node === node) continue;
    claimed[e.quota] += Math.max(e.used, e.granted);
    used[e.quota] += e.used;
  }
  return { claimed, used };
}

/** This node's own rows: where a restart on the same NODE_ID takes up its counts and grants. */
export function ownIn(snapshot: LedgerSnapshot, node: string): { used: Counters; granted: Counters } {
  const used = zeroCounters();
  const granted = zeroCounters();
  for (const e of snapshot.entries) {
    if (e.node !== node) continue;
    used[e.quota] = e.used;
    granted[e.quota] = e.granted;
  }
  return { used, granted };
}

/** The quotas `amounts` charges, with their amounts. A loop, not flatMap: every API call and message charges (issue 26). */
export function quotasIn(amounts: Partial<Counters>): (readonly [QuotaName, number])[] {
  const charged: (readonly [QuotaName, number])[] = [];
  for (const q of QUOTA_NAMES) {
    const n = amounts[q];
    if (n) charged.push([q, n]);
  }
  return charged;
}

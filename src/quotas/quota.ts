/**
 * The monthly quotas of a project (netpie reference §9, spec section 8), counted per calendar month in UTC:
 * - `shadowOps`: shadow reads (1 per started KiB of the shadow read) and writes (1 per started KiB of the written
 *   `data`); a batch is 1, whatever its size;
 * - `expressionRuns`: schema transform evaluations, one per field per write, so per item in a batch;
 * - `triggerRuns`: triggers that fire (a shadow trigger whose condition is true, a status trigger per change);
 * - `messages`: MQTT CONNECT 1, each subscription 1, each PUBLISH to `@msg` and each delivery 1 per started 4 KiB;
 * - `apiCalls`: Device API calls over REST and CoAP, 1 per started 4 KiB of the request plus of the reply.
 */
export const QUOTA_NAMES = ['shadowOps', 'expressionRuns', 'triggerRuns', 'messages', 'apiCalls'] as const;
export type QuotaName = (typeof QUOTA_NAMES)[number];

/** Amounts to charge, by quota; absent quotas are not charged. */
export type Amounts = Partial<Record<QuotaName, number>>;

/** Limits of a project: a number per limited quota; absent = unlimited (the default). */
export type Limits = Partial<Record<QuotaName, number>>;

/** What humans read in messages. */
export const QUOTA_LABEL: Readonly<Record<QuotaName, string>> = {
  shadowOps: 'shadow operations',
  expressionRuns: 'expression runs',
  triggerRuns: 'trigger runs',
  messages: 'messages',
  apiCalls: 'API calls',
};

/** The month last asked for and its bounds: every metered call asks, and nearly always for the same month. */
let lastMonth = { start: 0, end: 0, month: '' };

/** `2025-01` for any time in January 2025, UTC. */
export function monthOf(ms: number): string {
  if (ms >= lastMonth.start && ms < lastMonth.end) return lastMonth.month;
  const month = new Date(ms).toISOString().slice(0, 7);
  const date = new Date(ms);
  lastMonth = { start: Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1), end: monthEnd(month), month };
  return month;
}

/** The first millisecond of the month after `month` (when its quotas refill). */
export function monthEnd(month: string): number {
  const [year, m] = month.split('-').map(Number);
  return Date.UTC(year, m, 1);
}

/** Started blocks of `blockBytes`, at least 1: an empty payload still costs one (netpie reference §9 rounds up). */
export const blocksOf = (bytes: number, blockBytes: number): number => Math.max(1, Math.ceil(bytes / blockBytes));

export const KIB = 1024;
/** Shadow reads and writes are metered per KiB, messages and API payloads per 4 KiB (netpie reference §6.5, §9). */
export const SHADOW_BLOCK = KIB;
export const MESSAGE_BLOCK = 4 * KIB;

import * as t from 'io-ts';
import { closed } from '../../core/codecs';
import { formatTtl, parseTtl, Ttl } from '../durations';

/**
 * Roll-up tiers (issue 23 §3): a project declares periods such as 1m and 1h; every tier keeps, for each bucket of its
 * period and each series (`attr`) of each device of the project, the bucket's min, max, sum, count and the time of its
 * first point. Buckets are aligned to the epoch (UTC): [k·period, (k+1)·period).
 */

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;
/** Tiers a project may declare. */
export const MAX_TIERS = 4;

/** What a tier keeps of a bucket, one series each (tag `agg`); `first` is the time of the bucket's first point. */
export const TIER_AGGREGATES = ['min', 'max', 'sum', 'count', 'first'] as const;
export type TierAggregate = (typeof TIER_AGGREGATES)[number];

export interface RollupTier {
  readonly periodMs: number;
  /** undefined: kept until the raw history is deleted. */
  readonly retentionMs: number | undefined;
}

/** A project's declaration as stored: `builtAt` is set once every device's history before it is rolled up. */
export interface RollupDeclaration {
  readonly tiers: readonly RollupTier[];
  readonly declaredAt: number;
  readonly builtAt: number | undefined;
}

const PERIOD_PROBLEM = 'must be a whole number of minutes that divides a day (1m, 5m, 15m, 1h, 6h, 1d, ...)';

/** A tier's period: whole minutes that divide a day, so that every bucket lies within one UTC day. */
export const Period = new t.Type<number, string, unknown>(
  'Period',
  (u): u is number => typeof u === 'number',
  (u, c) => {
    if (typeof u !== 'string' && typeof u !== 'number') return t.failure(u, c, PERIOD_PROBLEM);
    const parsed = parseTtl(u);
    if (!('ms' in parsed)) return t.failure(u, c, parsed.problem);
    return parsed.ms % MINUTE_MS === 0 && DAY_MS % parsed.ms === 0 ? t.success(parsed.ms) : t.failure(u, c, PERIOD_PROBLEM);
  },
  formatTtl,
);

/** A tier's retention: a ttl duration, or `unlimited`. */
export const TierRetention = new t.Type<number | undefined, string, unknown>(
  'TierRetention',
  (u): u is number | undefined => u === undefined || typeof u === 'number',
  (u, c) => (u === 'unlimited' ? t.success(undefined) : Ttl.validate(u, c)),
  (ms) => (ms === undefined ? 'unlimited' : formatTtl(ms)),
);

const TierRequest = closed({ period: Period, retention: TierRetention });

const TIERS_PROBLEM = `must list 1 to ${MAX_TIERS} tiers of different periods`;

const TierList = new t.Type<RollupTier[], unknown, unknown>(
  'TierList',
  (u): u is RollupTier[] => Array.isArray(u),
  (u, c) => {
    if (!Array.isArray(u) || u.length === 0 || u.length > MAX_TIERS) return t.failure(u, c, TIERS_PROBLEM);
    const decoded = t.array(TierRequest).validate(u, c);
    if (decoded._tag === 'Left') return decoded;
    const tiers = decoded.right.map((tier) => ({ periodMs: tier.period, retentionMs: tier.retention }));
    if (new Set(tiers.map((tier) => tier.periodMs)).size !== tiers.length) return t.failure(u, c, TIERS_PROBLEM);
    return t.success(tiers.sort((a, b) => a.periodMs - b.periodMs));
  },
  t.identity,
);

/** `{"tiers": [{"period": "1h", "retention": "1y"}, ...]}`, sorted by period once decoded. */
export const RollupRequest = closed({ tiers: TierList });

/** A tier as the admin API shows it. */
export const tierText = (tier: RollupTier) => ({ period: formatTtl(tier.periodMs), retention: TierRetention.encode(tier.retentionMs) });

/** The tier's own metric for a device: `$rollup/1h/<deviceid>`; `$` and `/` never occur in a device id. */
export const tierMetric = (periodMs: number, deviceid: string): string => `$rollup/${formatTtl(periodMs)}/${deviceid}`;

/** The start of the bucket holding `t` (epoch-aligned, also before 1970). */
export const bucketStart = (t: number, periodMs: number): number => t - (((t % periodMs) + periodMs) % periodMs);

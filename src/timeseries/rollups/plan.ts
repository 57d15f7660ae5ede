import { alignAnchor, fixedUnitMs } from '../query/calendar';
import { AggregatorSpec, MetricQuery, RangeOptions } from '../query/query-model';
import { zoneFor } from '../query/time-zone';
import { bucketStart, RollupTier } from './tiers';

/** The range aggregators a tier answers: each bucket's value follows from min, max, sum and count. */
const SERVED = new Set(['avg', 'min', 'max', 'sum', 'count']);
/** Aggregators that may follow it: they only transform the bucketed series (point-aggregators.ts). */
const AFTERWARDS = new Set(['scale', 'div', 'diff', 'filter', 'trim']);

export type ServedAggregator = 'avg' | 'min' | 'max' | 'sum' | 'count';

/** How one metric of a query is answered from a tier. */
export interface MetricPlan {
  readonly metric: MetricQuery;
  readonly tier: RollupTier;
  readonly aggregator: ServedAggregator;
  readonly range: RangeOptions;
  readonly rest: readonly AggregatorSpec[];
  /** Grouped by tag `attr` (one result per field), or one result for every field. */
  readonly byAttr: boolean;
  /** Tier buckets answer [tierFrom, tierTo]; the rest of [start, end] is read raw. */
  readonly tierFrom: number;
  readonly tierTo: number;
}

/** From when a tier holds every bucket: its build's start, and its retention. */
export interface TierCoverage {
  readonly tier: RollupTier;
  readonly from: number;
}

/**
 * The plan of a metric on the coarsest tier that answers it exactly (issue 23 §3), or undefined: then raw, as
 * always. Exact means every bucket of the query is a union of whole tier buckets: the sampling is whole tier periods
 * and the anchor of the buckets (the start, or with align_sampling the aligned start: range-buckets.ts) lies on a
 * tier boundary; calendar samplings (days and longer) only in UTC, where they start at midnight. No `limit` or `desc`
 * (they pick raw points), tag filters and tag groups only on `attr` (tiers keep each field's series, nothing else).
 */
export function planMetric(metric: MetricQuery, tiers: readonly TierCoverage[]): MetricPlan | undefined {
  if (metric.limit > 0 || metric.order !== 'asc') return undefined;
  if (Object.keys(metric.tags).some((tag) => tag !== 'attr')) return undefined;
  const byAttr = attrGrouping(metric);
  if (byAttr === undefined) return undefined;
  const [first, ...rest] = metric.aggregators;
  if (first === undefined || !SERVED.has(first.name) || !('range' in first)) return undefined;
  if (!rest.every((a) => AFTERWARDS.has(a.name))) return undefined;
  const coarsestFirst = [...tiers].sort((a, b) => b.tier.periodMs - a.tier.periodMs);
  for (const { tier, from } of coarsestFirst) {
    if (!nests(first.range, tier.periodMs)) continue;
    const P = tier.periodMs;
    const tierFrom = Math.max(bucketStart(metric.start + P - 1, P), bucketStart(from + P - 1, P));
    const tierTo = bucketStart(metric.end + 1, P) - 1;
    if (tierFrom > tierTo) continue;
    return { metric, tier, aggregator: first.name as ServedAggregator, range: first.range, rest, byAttr, tierFrom, tierTo };
  }
  return undefined;
}

/** true: one group per `attr`; false: no tag grouper; undefined: another grouping (not served). */
function attrGrouping(metric: MetricQuery): boolean | undefined {
  if (metric.groupBy.length === 0) return false;
  if (metric.groupBy.length > 1) return undefined;
  const [grouper] = metric.groupBy;
  return grouper.name === 'tag' && grouper.tags.length === 1 && grouper.tags[0] === 'attr' ? true : undefined;
}

/** Whether every bucket boundary of `range` falls on a boundary of the tier's period. */
export function nests(range: RangeOptions, periodMs: number): boolean {
  const { value, unit } = range.sampling;
  const fixed = fixedUnitMs(unit);
  if (fixed === undefined && range.timeZone !== 'UTC') return false;
  if (fixed !== undefined && (value * fixed) % periodMs !== 0) return false;
  const anchor = range.alignSampling ? alignAnchor(unit, zoneFor(range.timeZone), range.startTime) : range.startTime;
  return bucketStart(anchor, periodMs) === anchor;
}

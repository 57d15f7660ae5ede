import { bucketStart, TierAggregate } from './tiers';

/** What a tier keeps of one bucket of one series: its aggregates, `first` being the time of its first point. */
export type BucketSummary = { start: number } & Record<TierAggregate, number>;

/** The buckets of one series' points (ascending by time), each summed in time order as the engine sums a bucket. */
export function summarize(ts: ArrayLike<number>, vals: ArrayLike<number>, periodMs: number): BucketSummary[] {
  const out: BucketSummary[] = [];
  let current: BucketSummary | undefined;
  for (let i = 0; i < ts.length; i++) {
    const start = bucketStart(ts[i], periodMs);
    const v = vals[i];
    if (current === undefined || current.start !== start) {
      current = { start, min: v, max: v, sum: v, count: 1, first: ts[i] };
      out.push(current);
    } else {
      current.min = Math.min(current.min, v);
      current.max = Math.max(current.max, v);
      current.sum += v;
      current.count++;
    }
  }
  return out;
}

/**
 * Summaries back from a tier's series of one attr (tag `agg` -> points), ascending by bucket start; an aggregate not
 * read is NaN, `first` the bucket's start when not read. Buckets are those of `count`.
 */
export function summariesOfTier(byAgg: ReadonlyMap<string, { ts: ArrayLike<number>; vals: ArrayLike<number> }>): BucketSummary[] {
  const count = byAgg.get('count');
  if (count === undefined) return [];
  const out: BucketSummary[] = new Array(count.ts.length);
  for (let i = 0; i < count.ts.length; i++) {
    out[i] = { start: count.ts[i], count: count.vals[i], min: NaN, max: NaN, sum: NaN, first: count.ts[i] };
  }
  for (const agg of ['min', 'max', 'sum', 'first'] as const) {
    const series = byAgg.get(agg);
    if (series !== undefined) fill(out, agg, series);
  }
  return out;
}

/** One aggregate into the summaries of the same buckets: both ascending, walked together (written together, they match). */
function fill(out: BucketSummary[], agg: TierAggregate, series: { ts: ArrayLike<number>; vals: ArrayLike<number> }): void {
  let j = 0;
  for (let i = 0; i < out.length; i++) {
    while (j < series.ts.length && series.ts[j] < out[i].start) j++;
    if (j < series.ts.length && series.ts[j] === out[i].start) out[i][agg] = series.vals[j];
  }
}

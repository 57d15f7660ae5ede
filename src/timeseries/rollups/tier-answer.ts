import { TimeSeriesQueries } from '../port';
import { QueryRun } from '../query';
import { ROW_WIDTH } from '../query/fetch-series';
import { answerPointCount, formatResult } from '../query/format-result';
import { diff, filter, mapValues, trim } from '../query/point-aggregators';
import { EMPTY_STREAM, PointStream, StreamBuilder } from '../query/point-stream';
import { AggregatorSpec } from '../query/query-model';
import { AnswerMetric, AnswerResult, GroupByEntry } from '../query/query-response';
import { bucketing } from '../query/range-buckets';
import { BucketSummary, summariesOfTier, summarize } from './bucket-summaries';
import { joined, TimeRange } from './dirty-ranges';
import { MetricPlan } from './plan';
import { readGrouped } from './series-reader';
import { bucketStart, TierAggregate, tierMetric } from './tiers';

export interface TierAnswerDeps {
  readonly queries: Pick<TimeSeriesQueries, 'query'>;
  /** Times of the device whose tier buckets may lag its raw points: read raw. */
  readonly pending: (deviceid: string) => readonly TimeRange[];
  /** The embedded engine reports keys_scanned; KairosDB 1.2.1 does not (query-response.ts). */
  readonly keysScanned: boolean;
}

const TYPE_ENTRY: GroupByEntry = { name: 'type', type: 'number' };

/**
 * One metric answered from its tier: the tier buckets in [tierFrom, tierTo] that no pending write touches, the rest
 * (the query's partial first and last tier buckets, pending buckets, times before the tier's build) summarized from
 * the raw points the same way; then the engine's rules for groups, buckets and return times (execute-query.ts).
 * `sample_size` counts the raw points the buckets summarize: what the raw query reads while they all exist.
 */
export async function answerFromTier(plan: MetricPlan, deps: TierAnswerDeps, run: QueryRun): Promise<AnswerMetric> {
  const byAttr = await summariesByAttr(plan, deps);
  await run.pace();
  const attrs = [...byAttr.keys()].sort();
  let sampleSize = 0;
  const rows = new Set<string>();
  for (const [attr, summaries] of byAttr) {
    for (const s of summaries) {
      sampleSize += s.count;
      rows.add(`${attr}\u0000${s.first - (Math.abs(s.first) % ROW_WIDTH)}`);
    }
  }
  const { metric } = plan;
  const results: AnswerResult[] = [];
  const finish = (stream: PointStream, entries: readonly GroupByEntry[], groupAttrs: readonly string[]) => {
    run.countGroups();
    run.countReturned(answerPointCount(stream));
    const tags = new Map(groupAttrs.length === 0 ? [] : [['attr', groupAttrs]] as [string, string[]][]);
    results.push(formatResult(metric.name, entries, tags, metric.excludeTags, stream));
  };
  if (attrs.length === 0) finish(EMPTY_STREAM, [], []);
  else if (!plan.byAttr) finish(afterwards(bucketed(plan, attrs.flatMap((a) => byAttr.get(a)!)), plan.rest), [TYPE_ENTRY], attrs);
  else {
    // Group keys are `attr` + value (group-by-tag.ts): the same order as the values'.
    for (const attr of attrs) {
      const entries: GroupByEntry[] = [{ name: 'tag', tags: ['attr'], group: { attr } }, TYPE_ENTRY];
      finish(afterwards(bucketed(plan, byAttr.get(attr)!), plan.rest), entries, [attr]);
    }
  }
  return { sample_size: sampleSize, ...(deps.keysScanned ? { keys_scanned: rows.size } : {}), results };
}

/** Every field's bucket summaries over [start, end]: from the tier, and from raw points where the tier cannot answer. */
async function summariesByAttr(plan: MetricPlan, deps: TierAnswerDeps): Promise<Map<string, BucketSummary[]>> {
  const { metric, tier, tierFrom, tierTo } = plan;
  const P = tier.periodMs;
  const rawRanges: TimeRange[] = [];
  if (metric.start < tierFrom) rawRanges.push({ start: metric.start, end: tierFrom - 1 });
  if (tierTo < metric.end) rawRanges.push({ start: tierTo + 1, end: metric.end });
  for (const p of deps.pending(metric.name)) {
    const start = Math.max(metric.start, bucketStart(p.start, P));
    const end = Math.min(metric.end, bucketStart(p.end, P) + P - 1);
    if (start <= end) rawRanges.push({ start, end });
  }
  const raw = joined(rawRanges);
  const byAttr = new Map<string, BucketSummary[]>();
  const add = (attr: string, summaries: readonly BucketSummary[]) => byAttr.set(attr, [...(byAttr.get(attr) ?? []), ...summaries]);
  for (const range of raw) {
    for (const series of await readGrouped(deps.queries, metric.name, metric.tags, range.start, range.end, ['attr'])) {
      if (series.tags.attr) add(series.tags.attr, summarize(series.ts, series.vals, P));
    }
  }
  const inRaw = (t: number) => raw.some((r) => t >= r.start && t <= r.end);
  const tierSeries = await readGrouped(deps.queries, tierMetric(P, metric.name), { ...metric.tags, agg: aggregatesRead(plan) }, tierFrom, tierTo, ['attr', 'agg']);
  const byTierAttr = new Map<string, Map<string, { ts: ArrayLike<number>; vals: ArrayLike<number> }>>();
  for (const series of tierSeries) {
    const aggs = byTierAttr.get(series.tags.attr) ?? new Map();
    aggs.set(series.tags.agg, series);
    byTierAttr.set(series.tags.attr, aggs);
  }
  for (const [attr, aggs] of byTierAttr) add(attr, summariesOfTier(aggs).filter((s) => !inRaw(s.start)));
  for (const summaries of byAttr.values()) summaries.sort((a, b) => a.first - b.first);
  return byAttr;
}

/**
 * The tier series a plan reads: `count` (sample_size), the aggregator's own, and the time of each bucket's first point
 * unless an align flag makes the bucket's start or end the time of the answer (then the tier bucket's start stands in).
 */
function aggregatesRead(plan: MetricPlan): TierAggregate[] {
  const own: TierAggregate[] = plan.aggregator === 'avg' ? ['sum'] : plan.aggregator === 'count' ? [] : [plan.aggregator];
  const aligned = plan.range.alignStartTime || plan.range.alignEndTime;
  return ['count', ...own, ...(aligned ? [] : ['first' as const])];
}

/** The first aggregator's buckets (range-buckets.ts), each a union of whole tier buckets. */
function bucketed(plan: MetricPlan, summaries: readonly BucketSummary[]): PointStream {
  const sorted = [...summaries].sort((a, b) => a.first - b.first);
  const b = bucketing(plan.range);
  const bounds = new Float64Array(2);
  const out = new StreamBuilder(Math.min(sorted.length, 1024));
  for (let i = 0; i < sorted.length;) {
    b.bucketOf(sorted[i].first, bounds);
    const time = b.alignStartTime ? bounds[0] : b.alignEndTime ? bounds[1] : sorted[i].first;
    let sum = 0;
    let count = 0;
    let min = Number.MAX_VALUE;
    let max = -Number.MAX_VALUE;
    for (; i < sorted.length && sorted[i].first < bounds[1]; i++) {
      sum += sorted[i].sum;
      count += sorted[i].count;
      min = Math.min(min, sorted[i].min);
      max = Math.max(max, sorted[i].max);
    }
    const values = { avg: sum / count, sum, count, min, max };
    out.push(time, values[plan.aggregator]);
  }
  return out.finish();
}

function afterwards(stream: PointStream, rest: readonly AggregatorSpec[]): PointStream {
  let s = stream;
  for (const a of rest) {
    if (a.name === 'scale') s = mapValues(s, (v) => v * a.factor);
    else if (a.name === 'div') s = mapValues(s, (v) => v / a.divisor);
    else if (a.name === 'diff') s = diff(s);
    else if (a.name === 'filter') s = filter(s, a.op, a.threshold);
    else if (a.name === 'trim') s = trim(s, a.trim);
  }
  return s;
}

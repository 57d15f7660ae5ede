import { Point } from '../point';
import { HistoryEraser, PointRange, PointWriter, TimeSeriesQueries } from '../port';
import { BucketSummary, summarize } from './bucket-summaries';
import { TimeRange } from './dirty-ranges';
import { daysWithPoints, readGrouped } from './series-reader';
import { bucketStart, DAY_MS, RollupTier, TIER_AGGREGATES, tierMetric } from './tiers';

export interface RefreshDeps {
  /** Either engine's query side: raw points and tier points are read through it (series-reader.ts). */
  readonly queries: Pick<TimeSeriesQueries, 'query'>;
  /** The engine's own writer and eraser (tier points are not marked dirty again). */
  readonly writer: PointWriter;
  readonly eraser: HistoryEraser;
  readonly now: () => number;
}

/** The field tag of every point (timeseries/shadow-points.ts): tiers summarize each field's series. */
const FIELD = 'attr';

/**
 * Recomputes the tier buckets of one device over `ranges` from its raw points, day by day (UTC): every tier's buckets
 * lie within one day, so a day is read once for all tiers. A bucket with raw points gets its five aggregates written
 * (a point written again replaces the old value); a tier bucket left without raw points is deleted.
 */
export async function refreshDevice(deps: RefreshDeps, deviceid: string, tiers: readonly RollupTier[], ranges: readonly TimeRange[]): Promise<void> {
  for (const day of await daysToRefresh(deps, deviceid, tiers, ranges)) await refreshDay(deps, deviceid, tiers, day, day + DAY_MS - 1);
}

/** Ranges longer than this (a new declaration's history) are first asked which days hold points. */
const SCAN_DAYS = 7;

/**
 * The days of `ranges` that may have changed: every day of a short range; of a long one, only the days where the
 * device or one of its tiers has points, found with a count per day over SCAN_DAYS at a time (the engine's budget
 * bounds the points one query reads).
 */
async function daysToRefresh(deps: RefreshDeps, deviceid: string, tiers: readonly RollupTier[], ranges: readonly TimeRange[]): Promise<number[]> {
  const days = new Set<number>();
  for (const range of ranges) {
    const first = bucketStart(range.start, DAY_MS);
    if (range.end - first < SCAN_DAYS * DAY_MS) {
      for (const day of daysOf([range])) days.add(day);
      continue;
    }
    for (let from = first; from <= range.end; from += SCAN_DAYS * DAY_MS) {
      const to = Math.min(range.end, from + SCAN_DAYS * DAY_MS - 1);
      for (const metric of [deviceid, ...tiers.map((tier) => tierMetric(tier.periodMs, deviceid))]) {
        for (const day of await daysWithPoints(deps.queries, metric, from, to)) days.add(day);
      }
    }
  }
  return [...days].sort((a, b) => a - b);
}

/** The UTC days (their starts) that the ranges touch, ascending, each once. */
export function daysOf(ranges: readonly TimeRange[]): number[] {
  const days = new Set<number>();
  for (const range of ranges) {
    for (let day = bucketStart(range.start, DAY_MS); day <= range.end; day += DAY_MS) days.add(day);
  }
  return [...days].sort((a, b) => a - b);
}

async function refreshDay(deps: RefreshDeps, deviceid: string, tiers: readonly RollupTier[], start: number, end: number): Promise<void> {
  const raw = (await readGrouped(deps.queries, deviceid, {}, start, end, [FIELD])).filter((s) => s.tags[FIELD]);
  const points: Point[] = [];
  const stale: PointRange[] = [];
  for (const tier of tiers) {
    const metric = tierMetric(tier.periodMs, deviceid);
    const kept = new Map<string, BucketSummary[]>();
    for (const series of raw) {
      const summaries = summarize(series.ts, series.vals, tier.periodMs);
      kept.set(series.tags[FIELD], summaries);
      points.push(...tierPoints(metric, series.tags[FIELD], summaries, tier, deps.now()));
    }
    const existing = await readGrouped(deps.queries, metric, { agg: ['count'] }, start, end, [FIELD]);
    for (const series of existing) {
      const attr = series.tags[FIELD];
      const now = new Set((kept.get(attr) ?? []).map((s) => s.start));
      for (let i = 0; i < series.ts.length; i++) {
        if (!now.has(series.ts[i])) stale.push({ metric, tags: { [FIELD]: [attr] }, start: series.ts[i], end: series.ts[i] });
      }
    }
  }
  if (points.length > 0) await deps.writer.writePoints(points);
  if (stale.length > 0) await deps.eraser.deletePoints(stale);
}

function tierPoints(metric: string, attr: string, summaries: readonly BucketSummary[], tier: RollupTier, now: number): Point[] {
  const points: Point[] = [];
  for (const summary of summaries) {
    // A tier point expires its retention after its bucket ends; one already past it is not written.
    const expiresAt = tier.retentionMs === undefined ? undefined : summary.start + tier.periodMs + tier.retentionMs;
    if (expiresAt !== undefined && expiresAt <= now) continue;
    for (const agg of TIER_AGGREGATES) {
      points.push({ metric, tags: { [FIELD]: attr, agg }, timestamp: summary.start, value: summary[agg], ...(expiresAt === undefined ? {} : { expiresAt }) });
    }
  }
  return points;
}

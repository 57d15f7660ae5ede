import { addUnits, alignAnchor, fixedUnitMs, unitsBetween } from './calendar';
import { PointStream, StreamBuilder } from './point-stream';
import { RangeOptions } from './query-model';
import { PACE_EVERY, QueryRun } from './query-run';
import { zoneFor } from './time-zone';

/**
 * KairosDB's range-aggregator framework (reference §6.1, RangeAggregator). A point at t falls in bucket k of the
 * anchor A (the start, moved to a calendar boundary by align_sampling): d = whole units from A to t (truncated
 * toward zero), k = trunc(d / n), bucket [A + k·n, A + (k+1)·n) in the zone's calendar.
 */
export interface Bucketing {
  /** Start and end of the bucket holding t, written to `into` (no allocation per bucket). */
  bucketOf(t: number, into: Float64Array): void;
  readonly alignStartTime: boolean;
  readonly alignEndTime: boolean;
}

export function bucketing(range: RangeOptions): Bucketing {
  const { value: n, unit } = range.sampling;
  const zone = zoneFor(range.timeZone);
  const anchor = range.alignSampling ? alignAnchor(unit, zone, range.startTime) : range.startTime;
  const fixed = fixedUnitMs(unit);
  const base = { alignStartTime: range.alignStartTime, alignEndTime: range.alignEndTime };
  if (fixed !== undefined) {
    const width = n * fixed;
    return {
      ...base,
      bucketOf(t, into) {
        const k = Math.trunc(Math.trunc((t - anchor) / fixed) / n);
        into[0] = anchor + k * width;
        into[1] = into[0] + width;
      },
    };
  }
  return {
    ...base,
    bucketOf(t, into) {
      const k = Math.trunc(unitsBetween(unit, zone, t, anchor) / n);
      into[0] = addUnits(unit, zone, anchor, k * n);
      into[1] = addUnits(unit, zone, anchor, (k + 1) * n);
    },
  };
}

/**
 * Walks the stream bucket by bucket (RangeDataPointAggregator): the current point opens its bucket, which takes
 * points while their time is below the bucket end. Only the end is checked, so a descending stream falls into
 * one bucket (§4.5 step 3). Empty buckets are skipped. `returnTime` is the bucket's first point, or its start or
 * end with align_start_time / align_end_time (start wins). Paced by `run` every PACE_EVERY buckets.
 */
export async function forEachBucket(
  stream: PointStream,
  b: Bucketing,
  run: QueryRun,
  visit: (from: number, to: number, returnTime: number) => void,
): Promise<void> {
  const ts = stream.ts;
  const n = ts.length;
  const bounds = new Float64Array(2);
  let i = 0;
  for (let buckets = 0; i < n; buckets++) {
    if (buckets % PACE_EVERY === 0) await run.pace();
    b.bucketOf(ts[i], bounds);
    const end = bounds[1];
    let j = i + 1;
    while (j < n && ts[j] < end) j++;
    visit(i, j, b.alignStartTime ? bounds[0] : b.alignEndTime ? end : ts[i]);
    i = j;
  }
}

/**
 * `gaps`, the exhaustive walk (ExhaustiveRangeDataPointAggregator, §6.4): buckets follow each other from the
 * query start (or start_time) while the next one starts before min(end, now), and beyond for as long as points
 * remain. A bucket with points passes them through unchanged; an empty one gives a null point at its start.
 * The output can dwarf the input (a millisecond sampling over an hour is 3.6 million buckets): it may not hold
 * more points than a whole answer may (QUERY_MAX_POINTS_RETURNED), checked as it grows.
 */
export async function markGaps(stream: PointStream, range: RangeOptions, run: QueryRun): Promise<PointStream> {
  const b = bucketing(range);
  const ts = stream.ts;
  const n = ts.length;
  const out = new StreamBuilder(n + 16);
  const bounds = new Float64Array(2);
  let next = range.startTime;
  let i = 0;
  for (let buckets = 0; i < n || next < range.endTime; buckets++) {
    if (buckets % PACE_EVERY === 0) {
      run.checkStreamSize(out.length);
      await run.pace();
    }
    b.bucketOf(next, bounds);
    const [start, end] = bounds;
    if (!(end > next)) break;
    next = end;
    let j = i;
    while (j < n && ts[j] < end) j++;
    if (j > i) {
      for (let k = i; k < j; k++) out.pushFrom(stream, k);
    } else {
      out.pushNull(start);
    }
    i = j;
  }
  run.checkStreamSize(out.length);
  return out.finish();
}

/**
 * How many buckets `gaps` walks at least over [startTime, endTime): each gives one point or more, so this is a
 * lower bound of its output, known before any point is read (issue 10: refuse at once what could never be answered).
 */
export function gapsBucketsAtLeast(range: RangeOptions): number {
  const span = range.endTime - range.startTime;
  if (!(span > 0)) return 0;
  const { value, unit } = range.sampling;
  const fixed = fixedUnitMs(unit);
  const units = fixed !== undefined ? span / fixed : unitsBetween(unit, zoneFor(range.timeZone), range.endTime, range.startTime);
  return Math.max(0, Math.floor(units / value) - 1);
}

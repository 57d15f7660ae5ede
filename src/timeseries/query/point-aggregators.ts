import { fixedUnitMs, samplingLengthMs } from './calendar';
import { queryError } from './kairos-query-error';
import { PointStream, readAllValues, StreamBuilder, valueAt } from './point-stream';
import { Duration, FilterOp, TrimType } from './query-model';
import { PACE_EVERY, QueryRun } from './query-run';
import { zoneFor } from './time-zone';

/**
 * The aggregators that work point by point or pair by pair (reference §6.2): diff, div, scale, rate, sampler, sma,
 * trim and filter. They work in either order; rate, sampler and diff pair each point with the one before it in
 * the stream's order (integration test "Rate descending").
 */

/** diff: p[i] - p[i-1] at p[i]'s time; n points give n - 1. */
export function diff(s: PointStream): PointStream {
  const n = s.ts.length;
  if (n < 2) return { ts: new Float64Array(0), vals: new Float64Array(0) };
  const v = readAllValues(s);
  const vals = new Float64Array(n - 1);
  for (let i = 1; i < n; i++) vals[i - 1] = v[i] - v[i - 1];
  return { ts: s.ts.slice(1), vals };
}

export function mapValues(s: PointStream, f: (v: number) => number): PointStream {
  const v = readAllValues(s);
  const vals = new Float64Array(v.length);
  for (let i = 0; i < v.length; i++) vals[i] = f(v[i]);
  return { ts: s.ts, vals };
}

/**
 * rate: ((x1 - x0) / (t1 - t0)) · D(t0); sampler: (x1 / (t1 - t0)) · D(t0); both at t1, where D(t0) is the length
 * of one sampling period from t0 in the zone (a day can be 23 or 25 hours). Two points at the same time fail.
 */
export async function rate(
  s: PointStream, kind: 'rate' | 'sampler', sampling: Duration, timeZone: string, run: QueryRun,
): Promise<PointStream> {
  const n = s.ts.length;
  if (n < 2) return { ts: new Float64Array(0), vals: new Float64Array(0) };
  const v = readAllValues(s);
  const fixed = fixedUnitMs(sampling.unit);
  const zone = zoneFor(timeZone);
  const vals = new Float64Array(n - 1);
  for (let i = 1; i < n; i++) {
    // A calendar sampling asks the zone for every point.
    if (i % PACE_EVERY === 0) await run.pace();
    const t0 = s.ts[i - 1];
    const dt = s.ts[i] - t0;
    if (dt === 0) {
      throw queryError(
        `The ${kind} aggregator cannot compute rate for data points with the same time stamp.  You must precede ${kind} with another aggregator.`,
      );
    }
    const length = fixed !== undefined ? sampling.value * fixed : samplingLengthMs(t0, sampling, zone);
    vals[i - 1] = ((kind === 'rate' ? v[i] - v[i - 1] : v[i]) / dt) * length;
  }
  return { ts: s.ts.slice(1), vals };
}

/**
 * sma: the first size - 1 points only fill the window; each later point gives the mean of the last `size`
 * points, itself included. A size below 1 leaves the window empty: every point gives NaN, printed as null
 * (KairosDB does the same). Windows up to EXACT_SMA_WINDOW are summed oldest first like KairosDB's loop, so the
 * bits match; larger ones use a running sum to stay linear.
 */
const EXACT_SMA_WINDOW = 1024;

export async function sma(s: PointStream, size: number, run: QueryRun): Promise<PointStream> {
  const v = readAllValues(s);
  const n = v.length;
  if (size < 1) return { ts: s.ts, vals: new Float64Array(n).fill(NaN) };
  const skip = Math.min(n, size - 1);
  const vals = new Float64Array(n - skip);
  // An exact window sums up to EXACT_SMA_WINDOW values per point.
  const paceEvery = Math.max(1, Math.floor((PACE_EVERY * 16) / Math.min(size, EXACT_SMA_WINDOW)));
  let running = 0;
  for (let i = 0; i < n; i++) {
    if (i % paceEvery === 0) await run.pace();
    running += v[i];
    if (i >= size) running -= v[i - size];
    if (i < skip) continue;
    if (size <= EXACT_SMA_WINDOW) {
      let windowSum = 0;
      for (let k = i - size + 1; k <= i; k++) windowSum += v[k];
      vals[i - skip] = windowSum / size;
    } else {
      vals[i - skip] = running / size;
    }
  }
  return { ts: s.ts.slice(skip), vals };
}

/** trim: drops the first, the last or both points; without a trim type nothing is dropped. */
export function trim(s: PointStream, type: TrimType | undefined): PointStream {
  const n = s.ts.length;
  const from = type === 'first' || type === 'both' ? 1 : 0;
  const to = type === 'last' || type === 'both' ? n - 1 : n;
  if (to <= from) return { ts: new Float64Array(0), vals: new Float64Array(0) };
  const out = new StreamBuilder(to - from);
  for (let i = from; i < to; i++) out.pushFrom(s, i);
  return out.finish();
}

const COMPARE: Record<FilterOp, (a: number, b: number) => boolean> = {
  lte: (a, b) => a <= b, lt: (a, b) => a < b, gte: (a, b) => a >= b, gt: (a, b) => a > b, equal: (a, b) => a === b,
};

/** filter: DROPS every point where (value op threshold) holds, and keeps the rest unchanged. */
export function filter(s: PointStream, op: FilterOp, threshold: number): PointStream {
  const test = COMPARE[op];
  const out = new StreamBuilder(s.ts.length);
  for (let i = 0; i < s.ts.length; i++) if (!test(valueAt(s, i), threshold)) out.pushFrom(s, i);
  return out.finish();
}

import { SeriesSource } from '../port';
import { MetricQuery } from './query-model';
import { QueryRun } from './query-run';

/**
 * Reads a metric's series and applies KairosDB's storage-level limit (reference §4.2): KairosDB stores each series
 * in Cassandra rows 3 weeks wide and fetches every (series, row) pair with `LIMIT limit` in the requested order,
 * so the limit first applies per row; `sample_size` counts the points fetched after that cut, and `keys_scanned`
 * the (series, row) pairs that returned points. The per-group limit comes later (§4.5).
 */

/** KairosDB's Cassandra row width: 3 weeks (ROW_WIDTH = 1,814,400,000 ms). */
export const ROW_WIDTH = 1_814_400_000;

export interface FetchedSeries {
  readonly tags: Readonly<Record<string, string>>;
  /** Ascending by time, whatever the query's order. */
  readonly ts: Float64Array;
  readonly vals: Float64Array;
}

export interface FetchResult {
  readonly series: FetchedSeries[];
  readonly sampleSize: number;
  readonly keysScanned: number;
}

/**
 * Points scanned (QUERY_MAX_POINTS_SCANNED) are what the store reads: its own count before the read when it can
 * give one (every block the read touches), else the points it returned.
 */
export async function fetchSeries(source: SeriesSource, metric: MetricQuery, run: QueryRun): Promise<FetchResult> {
  const toScan = source.countPoints === undefined || metric.start > metric.end
    ? undefined
    : await source.countPoints(metric.name, metric.tags, metric.start, metric.end);
  if (toScan !== undefined) run.countScanned(toScan);
  const stored = await source.readSeries(metric.name, metric.tags, metric.start, metric.end);
  if (toScan === undefined) run.countScanned(stored.reduce((sum, s) => sum + s.timestamps.length, 0));
  await run.pace();
  let sampleSize = 0;
  let keysScanned = 0;
  const series: FetchedSeries[] = [];
  for (const s of stored) {
    const ts = toFloat64(s.timestamps);
    const vals = toFloat64(s.values);
    if (ts.length === 0) continue;
    const rows = rowsOf(ts);
    keysScanned += rows.length;
    const kept = metric.limit > 0 ? keepPerRow(ts, vals, rows, metric.limit, metric.order === 'desc') : { ts, vals };
    sampleSize += kept.ts.length;
    series.push({ tags: s.tags, ...kept });
  }
  return { series, sampleSize, keysScanned };
}

/** KairosDB's row time: `ts - (|ts| mod ROW_WIDTH)` (for negative times this is not a floor; kept as written). */
const rowTime = (ts: number): number => ts - (Math.abs(ts) % ROW_WIDTH);

/** The indexes of each row's points, ascending. */
type Row = { from: number; to: number } | { indexes: number[] };

function rowsOf(ts: Float64Array): Row[] {
  // Times >= 0 (sorted) fill rows one after the other: find each row's end by binary search.
  if (ts[0] >= 0) {
    const rows: Row[] = [];
    for (let from = 0; from < ts.length;) {
      const to = firstAtOrAfter(ts, rowTime(ts[from]) + ROW_WIDTH, from);
      rows.push({ from, to });
      from = to;
    }
    return rows;
  }
  const byRow = new Map<number, number[]>();
  for (let i = 0; i < ts.length; i++) {
    const key = rowTime(ts[i]);
    const list = byRow.get(key);
    if (list === undefined) byRow.set(key, [i]);
    else list.push(i);
  }
  return [...byRow.values()].map((indexes) => ({ indexes }));
}

function firstAtOrAfter(ts: Float64Array, time: number, from: number): number {
  let lo = from;
  let hi = ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[mid] < time) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Keeps the first `limit` points of each row (the last ones for desc), in ascending order. */
function keepPerRow(ts: Float64Array, vals: Float64Array, rows: Row[], limit: number, desc: boolean) {
  const kept: [number, number][] = [];
  for (const row of rows) {
    if ('indexes' in row) {
      for (const i of desc ? row.indexes.slice(-limit) : row.indexes.slice(0, limit)) kept.push([i, i + 1]);
    } else {
      kept.push(desc ? [Math.max(row.from, row.to - limit), row.to] : [row.from, Math.min(row.to, row.from + limit)]);
    }
  }
  kept.sort((a, b) => a[0] - b[0]);
  let n = 0;
  for (const [from, to] of kept) n += to - from;
  if (n === ts.length) return { ts, vals };
  const outTs = new Float64Array(n);
  const outVals = new Float64Array(n);
  let at = 0;
  for (const [from, to] of kept) {
    outTs.set(ts.subarray(from, to), at);
    outVals.set(vals.subarray(from, to), at);
    at += to - from;
  }
  return { ts: outTs, vals: outVals };
}

function toFloat64(values: ArrayLike<number>): Float64Array {
  return values instanceof Float64Array ? values : Float64Array.from(values);
}

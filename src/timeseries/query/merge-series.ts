import { FetchedSeries } from './fetch-series';
import { Order } from './query-model';
import { PointStream } from './point-stream';
import { PACE_EVERY, QueryRun } from './query-run';

/**
 * Merges the series of one group into one stream (reference §4.3 step 3, KairosDB's SortingDataPointGroup):
 * ascending by time, equal times by value ascending; duplicate times from different series stay separate points.
 * Descending order is the exact reverse. The inputs are never modified (they may be the store's own arrays).
 */
export async function mergeSeries(series: readonly FetchedSeries[], order: Order, run: QueryRun): Promise<PointStream> {
  const merged = series.length === 1 ? { ts: series[0].ts, vals: series[0].vals } : await mergeAscending(series, run);
  return order === 'desc' ? reversed(merged) : merged;
}

async function mergeAscending(series: readonly FetchedSeries[], run: QueryRun): Promise<PointStream> {
  let total = 0;
  for (const s of series) total += s.ts.length;
  const ts = new Float64Array(total);
  const vals = new Float64Array(total);
  const k = series.length;
  const position = new Int32Array(k);
  // A binary min-heap of series indexes, keyed by each series' next (time, value).
  const heap = new Int32Array(k);
  let size = 0;
  const less = (a: number, b: number): boolean => {
    const ta = series[a].ts[position[a]];
    const tb = series[b].ts[position[b]];
    return ta < tb || (ta === tb && series[a].vals[position[a]] < series[b].vals[position[b]]);
  };
  const siftDown = (from: number) => {
    let i = from;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < size && less(heap[l], heap[m])) m = l;
      if (r < size && less(heap[r], heap[m])) m = r;
      if (m === i) return;
      const swap = heap[i]; heap[i] = heap[m]; heap[m] = swap;
      i = m;
    }
  };
  for (let s = 0; s < k; s++) if (series[s].ts.length > 0) heap[size++] = s;
  for (let i = (size >> 1) - 1; i >= 0; i--) siftDown(i);
  for (let out = 0; out < total; out++) {
    if (out % (16 * PACE_EVERY) === 0) await run.pace();
    const s = heap[0];
    const p = position[s]++;
    ts[out] = series[s].ts[p];
    vals[out] = series[s].vals[p];
    if (position[s] === series[s].ts.length) heap[0] = heap[--size];
    siftDown(0);
  }
  return { ts, vals };
}

function reversed(s: PointStream): PointStream {
  const n = s.ts.length;
  const ts = new Float64Array(n);
  const vals = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    ts[i] = s.ts[n - 1 - i];
    vals[i] = s.vals[n - 1 - i];
  }
  return { ts, vals };
}

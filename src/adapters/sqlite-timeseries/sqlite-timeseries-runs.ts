/**
 * A run: points of one series sorted by strictly increasing timestamp, as two parallel typed arrays (no per-point
 * objects). Every layer of the SQLite time-series engine (a write's batch, a head fragment, a block, a read's result)
 * is a run; these functions build and combine them under KairosDB's rule that a (series, timestamp) written twice
 * keeps the last value written (reference §2.4).
 */
export interface Run {
  readonly timestamps: Float64Array;
  readonly values: Float64Array;
}

export const emptyRun = (): Run => ({ timestamps: new Float64Array(0), values: new Float64Array(0) });

/** Sorts points given in write order; of equal timestamps, the one written last wins. */
export function runFromPoints(timestamps: ArrayLike<number>, values: ArrayLike<number>): Run {
  const n = timestamps.length;
  let ordered = true;
  for (let i = 1; i < n && ordered; i++) ordered = timestamps[i] > timestamps[i - 1];
  if (ordered) return { timestamps: Float64Array.from(timestamps), values: Float64Array.from(values) };
  return keepLastOfEqualTimestamps(Float64Array.from(timestamps), Float64Array.from(values));
}

/** Runs in write order, later ones winning on equal timestamps. The common case, appends, is a plain concatenation. */
export function combineRuns(runs: readonly Run[]): Run {
  const nonEmpty = runs.filter((r) => r.timestamps.length > 0);
  if (nonEmpty.length === 0) return emptyRun();
  if (nonEmpty.length === 1) return nonEmpty[0];
  const all = concatRuns(nonEmpty);
  let disjoint = true;
  for (let i = 1; i < nonEmpty.length && disjoint; i++) {
    const prev = nonEmpty[i - 1].timestamps;
    disjoint = nonEmpty[i].timestamps[0] > prev[prev.length - 1];
  }
  return disjoint ? all : keepLastOfEqualTimestamps(all.timestamps, all.values);
}

/** Two runs merged in one pass; on equal timestamps `newer` wins. */
export function mergePreferringNewer(older: Run, newer: Run): Run {
  const a = older.timestamps;
  const b = newer.timestamps;
  if (b.length === 0) return older;
  if (a.length === 0) return newer;
  const timestamps = new Float64Array(a.length + b.length);
  const values = new Float64Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    if (a[i] < b[j]) {
      timestamps[n] = a[i];
      values[n++] = older.values[i++];
    } else {
      if (a[i] === b[j]) i++;
      timestamps[n] = b[j];
      values[n++] = newer.values[j++];
    }
  }
  while (i < a.length) {
    timestamps[n] = a[i];
    values[n++] = older.values[i++];
  }
  while (j < b.length) {
    timestamps[n] = b[j];
    values[n++] = newer.values[j++];
  }
  return { timestamps: timestamps.subarray(0, n), values: values.subarray(0, n) };
}

/** The points of `run` in [start, end], inclusive; views, not copies. */
export function sliceRun(run: Run, start: number, end: number): Run {
  const from = firstAtOrAfter(run.timestamps, start, 0, run.timestamps.length);
  const to = firstAtOrAfter(run.timestamps, end + 1, from, run.timestamps.length);
  return { timestamps: run.timestamps.subarray(from, to), values: run.values.subarray(from, to) };
}

/** Index of the first timestamp >= `t` in the sorted range [lo, hi), or `hi`. Timestamps are integers. */
export function firstAtOrAfter(timestamps: Float64Array, t: number, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (timestamps[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function concatRuns(runs: readonly Run[]): Run {
  let total = 0;
  for (const r of runs) total += r.timestamps.length;
  const timestamps = new Float64Array(total);
  const values = new Float64Array(total);
  let at = 0;
  for (const r of runs) {
    timestamps.set(r.timestamps, at);
    values.set(r.values, at);
    at += r.timestamps.length;
  }
  return { timestamps, values };
}

/** Sorts by (timestamp, position) and keeps the last position of each timestamp: "last write wins". */
function keepLastOfEqualTimestamps(ts: Float64Array, vs: Float64Array): Run {
  const order = Array.from({ length: ts.length }, (_, i) => i);
  order.sort((x, y) => ts[x] - ts[y] || x - y);
  const timestamps = new Float64Array(ts.length);
  const values = new Float64Array(ts.length);
  let n = 0;
  for (let k = 0; k < order.length; k++) {
    const i = order[k];
    if (k + 1 < order.length && ts[order[k + 1]] === ts[i]) continue;
    timestamps[n] = ts[i];
    values[n++] = vs[i];
  }
  return { timestamps: timestamps.subarray(0, n), values: values.subarray(0, n) };
}

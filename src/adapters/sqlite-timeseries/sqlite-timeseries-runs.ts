/**
 * A run: points of one series sorted by strictly increasing timestamp, as two parallel typed arrays (no per-point
 * objects). Every layer of the SQLite time-series engine (a write's batch, a head fragment, a block, a read's result)
 * is a run; these functions build and combine them under KairosDB's rule that a (series, timestamp) written twice
 * keeps the last value written (reference §2.4).
 */
export interface Run {
  readonly timestamps: Float64Array;
  readonly values: Float64Array;
  /**
   * When each point expires (epoch ms, Infinity: never; retention, issue 23 §2), parallel to the others; absent when
   * no point of the run expires (every run written before retention, and most runs since). A point's expiry travels
   * with its value: the one written last wins both.
   */
  readonly expiries?: Float64Array;
}

export const emptyRun = (): Run => ({ timestamps: new Float64Array(0), values: new Float64Array(0) });

/** Sorts points given in write order; of equal timestamps, the one written last wins. `expiries`: Infinity for never. */
export function runFromPoints(timestamps: ArrayLike<number>, values: ArrayLike<number>, expiries?: ArrayLike<number>): Run {
  const n = timestamps.length;
  let ordered = true;
  for (let i = 1; i < n && ordered; i++) ordered = timestamps[i] > timestamps[i - 1];
  const e = expiries === undefined ? undefined : Float64Array.from(expiries);
  if (ordered) return withExpiries(Float64Array.from(timestamps), Float64Array.from(values), e);
  return keepLastOfEqualTimestamps(Float64Array.from(timestamps), Float64Array.from(values), e);
}

const withExpiries = (timestamps: Float64Array, values: Float64Array, expiries: Float64Array | undefined): Run =>
  expiries === undefined ? { timestamps, values } : { timestamps, values, expiries };

/** The expiry of point `i` of a run. */
const expiryAt = (run: Run, i: number): number => (run.expiries === undefined ? Infinity : run.expiries[i]);

/** The run without the points expired at `now`; the run itself when none has. */
export function dropExpired(run: Run, now: number): Run {
  const e = run.expiries;
  if (e === undefined) return run;
  let n = 0;
  for (let i = 0; i < e.length; i++) if (e[i] > now) n++;
  if (n === e.length) return run;
  const timestamps = new Float64Array(n);
  const values = new Float64Array(n);
  const expiries = new Float64Array(n);
  let k = 0;
  for (let i = 0; i < e.length; i++) {
    if (e[i] <= now) continue;
    timestamps[k] = run.timestamps[i];
    values[k] = run.values[i];
    expiries[k++] = e[i];
  }
  return { timestamps, values, expiries };
}

/** When the last point of the run expires: Infinity when one never does (or none is given an expiry). */
export function lastExpiry(run: Run): number {
  const e = run.expiries;
  if (e === undefined) return Infinity;
  let last = -Infinity;
  for (let i = 0; i < e.length; i++) if (e[i] > last) last = e[i];
  return last;
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
  return disjoint ? all : keepLastOfEqualTimestamps(all.timestamps, all.values, all.expiries);
}

/** Two runs merged in one pass; on equal timestamps `newer` wins. */
export function mergePreferringNewer(older: Run, newer: Run): Run {
  const a = older.timestamps;
  const b = newer.timestamps;
  if (b.length === 0) return older;
  if (a.length === 0) return newer;
  const timestamps = new Float64Array(a.length + b.length);
  const values = new Float64Array(a.length + b.length);
  const expiries = older.expiries === undefined && newer.expiries === undefined ? undefined : new Float64Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  const takeOlder = () => {
    if (expiries) expiries[n] = expiryAt(older, i);
    timestamps[n] = a[i];
    values[n++] = older.values[i++];
  };
  const takeNewer = () => {
    if (expiries) expiries[n] = expiryAt(newer, j);
    timestamps[n] = b[j];
    values[n++] = newer.values[j++];
  };
  while (i < a.length && j < b.length) {
    if (a[i] < b[j]) {
      takeOlder();
    } else {
      if (a[i] === b[j]) i++;
      takeNewer();
    }
  }
  while (i < a.length) takeOlder();
  while (j < b.length) takeNewer();
  return withExpiries(timestamps.subarray(0, n), values.subarray(0, n), expiries?.subarray(0, n));
}

/** The points of `run` in [start, end], inclusive; views, not copies. */
export function sliceRun(run: Run, start: number, end: number): Run {
  const from = firstAtOrAfter(run.timestamps, start, 0, run.timestamps.length);
  const to = firstAtOrAfter(run.timestamps, end + 1, from, run.timestamps.length);
  return withExpiries(run.timestamps.subarray(from, to), run.values.subarray(from, to), run.expiries?.subarray(from, to));
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
  const expiries = runs.some((r) => r.expiries !== undefined) ? new Float64Array(total).fill(Infinity) : undefined;
  let at = 0;
  for (const r of runs) {
    timestamps.set(r.timestamps, at);
    values.set(r.values, at);
    if (expiries && r.expiries) expiries.set(r.expiries, at);
    at += r.timestamps.length;
  }
  return withExpiries(timestamps, values, expiries);
}

/** Sorts by (timestamp, position) and keeps the last position of each timestamp: "last write wins". */
function keepLastOfEqualTimestamps(ts: Float64Array, vs: Float64Array, es?: Float64Array): Run {
  const order = Array.from({ length: ts.length }, (_, i) => i);
  order.sort((x, y) => ts[x] - ts[y] || x - y);
  const timestamps = new Float64Array(ts.length);
  const values = new Float64Array(ts.length);
  const expiries = es && new Float64Array(ts.length);
  let n = 0;
  for (let k = 0; k < order.length; k++) {
    const i = order[k];
    if (k + 1 < order.length && ts[order[k + 1]] === ts[i]) continue;
    if (expiries && es) expiries[n] = es[i];
    timestamps[n] = ts[i];
    values[n++] = vs[i];
  }
  return withExpiries(timestamps.subarray(0, n), values.subarray(0, n), expiries?.subarray(0, n));
}

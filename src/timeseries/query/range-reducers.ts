import { javaDoubleToString } from './java-text';
import { queryError } from './kairos-query-error';
import { NUMBER, PointStream, StreamBuilder, valueAt } from './point-stream';
import { DevReturnType } from './query-model';

/**
 * What each range aggregator makes of one bucket [from, to) of a stream (reference §6.2; KairosDB's
 * RangeSubAggregators). Plain loops over the typed arrays: this is the hot path.
 */
export type Reducer = (s: PointStream, from: number, to: number, returnTime: number, out: StreamBuilder) => void;

/** avg: numeric points only (gaps' nulls are skipped); no numeric point gives NaN, printed as null. */
export const avg: Reducer = (s, from, to, time, out) => {
  let sum = 0;
  let count = 0;
  if (s.kinds === undefined) {
    for (let i = from; i < to; i++) sum += s.vals[i];
    count = to - from;
  } else {
    for (let i = from; i < to; i++) if (s.kinds[i] === NUMBER) { sum += s.vals[i]; count++; }
  }
  out.push(time, sum / count);
};

/** count: every point, nulls included. */
export const count: Reducer = (_s, from, to, time, out) => out.push(time, to - from);

export const sum: Reducer = (s, from, to, time, out) => {
  let total = 0;
  if (s.kinds === undefined) for (let i = from; i < to; i++) total += s.vals[i];
  else for (let i = from; i < to; i++) total += valueAt(s, i);
  out.push(time, total);
};

/** min / max start from ±Double.MAX_VALUE like KairosDB's, and use Math.min/max (NaN wins, as in Java). */
export const min: Reducer = (s, from, to, time, out) => {
  let m = Number.MAX_VALUE;
  for (let i = from; i < to; i++) m = Math.min(m, s.kinds === undefined ? s.vals[i] : valueAt(s, i));
  out.push(time, m);
};

export const max: Reducer = (s, from, to, time, out) => {
  let m = -Number.MAX_VALUE;
  for (let i = from; i < to; i++) m = Math.max(m, s.kinds === undefined ? s.vals[i] : valueAt(s, i));
  out.push(time, m);
};

export const first: Reducer = (s, from, _to, time, out) => out.push(time, valueAt(s, from));

/** last: the last numeric point, at its own time unless an align flag is set. */
export function last(aligned: boolean): Reducer {
  return (s, from, to, time, out) => {
    for (let i = to - 1; i >= from; i--) {
      if (s.kinds === undefined || s.kinds[i] === NUMBER) {
        out.push(aligned ? time : s.ts[i], s.vals[i]);
        return;
      }
    }
  };
}

/** dev: KairosDB's running mean and mean of squares, sample sd; NaN (one point) becomes 0. */
export function dev(returnType: DevReturnType, devCount: number): Reducer {
  return (s, from, to, time, out) => {
    let c = 0;
    let average = 0;
    let pwrSumAvg = 0;
    let sd = 0;
    for (let i = from; i < to; i++) {
      const x = valueAt(s, i);
      c++;
      average += (x - average) / c;
      pwrSumAvg += (x * x - pwrSumAvg) / c;
      sd = Math.sqrt((pwrSumAvg * c - c * average * average) / (c - 1));
    }
    if (Number.isNaN(sd)) sd = 0;
    out.push(time, returnType === 'pos_sd' ? average + sd * devCount : returnType === 'neg_sd' ? average - sd * devCount : sd);
  };
}

/**
 * percentile: sort, pos = q·(n+1), interpolate between neighbours, clamp to the ends. KairosDB samples a random
 * reservoir of 1028 values above that many points (non-deterministic); this uses every value, the exact answer
 * the reservoir estimates.
 */
export function percentile(q: number): Reducer {
  return (s, from, to, time, out) => {
    if (q < 0 || q > 1) throw queryError(`${javaDoubleToString(q)} is not in [0..1]`);
    const values = new Float64Array(to - from);
    for (let i = from; i < to; i++) values[i - from] = valueAt(s, i);
    values.sort();
    const n = values.length;
    let result: number;
    if (n === 0) result = 0;
    else {
      const pos = q * (n + 1);
      if (pos < 1) result = values[0];
      else if (pos >= n) result = values[n - 1];
      else {
        const lower = values[Math.floor(pos) - 1];
        result = lower + (pos - Math.floor(pos)) * (values[Math.floor(pos)] - lower);
      }
    }
    out.push(time, result);
  };
}

/**
 * least_squares: 1 or 2 points pass through unchanged; 3 or more give the fitted line at the first and last
 * point times. The fit follows Apache Commons Math's SimpleRegression (centred sums updated point by point), so
 * the numbers match KairosDB's to the last bit.
 */
export const leastSquares: Reducer = (s, from, to, _time, out) => {
  let n = 0, xbar = 0, ybar = 0, sumXX = 0, sumXY = 0, sumX = 0, sumY = 0;
  for (let i = from; i < to; i++) {
    const x = s.ts[i];
    const y = valueAt(s, i);
    if (n === 0) { xbar = x; ybar = y; }
    else {
      const fact1 = 1 + n;
      const fact2 = n / (1 + n);
      const dx = x - xbar;
      const dy = y - ybar;
      sumXX += dx * dx * fact2;
      sumXY += dx * dy * fact2;
      xbar += dx / fact1;
      ybar += dy / fact1;
    }
    sumX += x;
    sumY += y;
    n++;
  }
  if (n <= 2) {
    for (let i = from; i < to; i++) out.pushFrom(s, i);
    return;
  }
  const slope = Math.abs(sumXX) < 10 * Number.MIN_VALUE ? NaN : sumXY / sumXX;
  const intercept = (sumY - slope * sumX) / n;
  out.push(s.ts[from], intercept + slope * s.ts[from]);
  out.push(s.ts[to - 1], intercept + slope * s.ts[to - 1]);
};

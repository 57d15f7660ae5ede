import { queryError } from './kairos-query-error';

/**
 * A group's points between aggregators: parallel typed arrays (no object per point, so millions of points stay
 * cheap). Most streams hold numbers only; `kinds` appears once `gaps` adds null points or js_range returns arrays.
 */
export const NUMBER = 0;
/** A null point of `gaps` (KairosDB NullDataPoint): prints as null, has no value to read. */
export const NULL = 1;
/** An array result of js_range with array_result (kise DoubleArrayDataPoint): prints as [ts, v1, v2, ...]. */
export const ARRAY = 2;

export interface PointStream {
  readonly ts: Float64Array;
  readonly vals: Float64Array;
  /** Per point: NUMBER, NULL or ARRAY. Absent = all NUMBER. */
  readonly kinds?: Uint8Array;
  /** The arrays of ARRAY points, by index. */
  readonly arrays?: ReadonlyMap<number, readonly number[]>;
}

export const EMPTY_STREAM: PointStream = { ts: new Float64Array(0), vals: new Float64Array(0) };

export const kindAt = (s: PointStream, i: number): number => (s.kinds === undefined ? NUMBER : s.kinds[i]);

/**
 * DataPoint.getDoubleValue: a null point cannot be read, and KairosDB fails the query with this message (§4.6,
 * §6.3); an array point reads as 0 (DoubleArrayDataPoint.getDoubleValue).
 */
export function valueAt(s: PointStream, i: number): number {
  if (s.kinds === undefined) return s.vals[i];
  const kind = s.kinds[i];
  if (kind === NULL) throw gapsChainError();
  return kind === ARRAY ? 0 : s.vals[i];
}

/** The values of a whole stream, checked once, for loops that read every value. */
export function readAllValues(s: PointStream): Float64Array {
  if (s.kinds === undefined) return s.vals;
  for (let i = 0; i < s.kinds.length; i++) if (s.kinds[i] === NULL) throw gapsChainError();
  return s.vals.map((v, i) => (s.kinds?.[i] === ARRAY ? 0 : v));
}

export function gapsChainError() {
  return queryError('No aggregator can be chained after org.kairosdb.core.aggregator.DataGapsMarkingAggregator');
}

/** Builds a stream point by point into growing typed arrays. */
export class StreamBuilder {
  private ts: Float64Array;
  private vals: Float64Array;
  private kinds: Uint8Array | undefined;
  private arrays: Map<number, readonly number[]> | undefined;
  private n = 0;

  constructor(capacity = 16) {
    this.ts = new Float64Array(Math.max(capacity, 4));
    this.vals = new Float64Array(Math.max(capacity, 4));
  }

  get length(): number { return this.n; }

  push(t: number, v: number): void {
    if (this.n === this.ts.length) this.grow();
    this.ts[this.n] = t;
    this.vals[this.n] = v;
    this.n++;
  }

  pushNull(t: number): void {
    this.markKind(NULL);
    this.push(t, NaN);
  }

  pushArray(t: number, values: readonly number[]): void {
    this.markKind(ARRAY);
    (this.arrays ??= new Map()).set(this.n, values);
    this.push(t, 0);
  }

  /** Copies point i of `s` unchanged (gaps, trim, filter, least_squares pass originals through). */
  pushFrom(s: PointStream, i: number): void {
    const kind = kindAt(s, i);
    if (kind === NULL) this.pushNull(s.ts[i]);
    else if (kind === ARRAY) this.pushArray(s.ts[i], s.arrays?.get(i) ?? []);
    else this.push(s.ts[i], s.vals[i]);
  }

  finish(): PointStream {
    const ts = this.ts.subarray(0, this.n);
    const vals = this.vals.subarray(0, this.n);
    if (this.kinds === undefined) return { ts, vals };
    return { ts, vals, kinds: this.kinds.subarray(0, this.n), arrays: this.arrays };
  }

  private markKind(kind: number): void {
    if (this.kinds === undefined) this.kinds = new Uint8Array(this.ts.length);
    if (this.n === this.ts.length) this.grow();
    this.kinds[this.n] = kind;
  }

  private grow(): void {
    const size = this.ts.length * 2;
    const ts = new Float64Array(size); ts.set(this.ts); this.ts = ts;
    const vals = new Float64Array(size); vals.set(this.vals); this.vals = vals;
    if (this.kinds !== undefined) {
      const kinds = new Uint8Array(size); kinds.set(this.kinds); this.kinds = kinds;
    }
  }
}

/** The points [from, to) of a stream, sharing its memory. */
export function sliceStream(s: PointStream, from: number, to: number): PointStream {
  const ts = s.ts.subarray(from, to);
  const vals = s.vals.subarray(from, to);
  if (s.kinds === undefined) return { ts, vals };
  const arrays = new Map<number, readonly number[]>();
  for (const [i, a] of s.arrays ?? []) if (i >= from && i < to) arrays.set(i - from, a);
  return { ts, vals, kinds: s.kinds.subarray(from, to), arrays };
}

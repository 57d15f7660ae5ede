import { endianness } from 'node:os';
import { Run } from './sqlite-timeseries-runs';

/**
 * The bytes of a run as stored in the `blocks` and `head` tables.
 * - Timestamps: the first one lives in its own INTEGER column (`first_ts`); the blob holds the n-1 gaps between
 *   neighbours as unsigned LEB128 varints. Runs are strictly increasing, so every gap is >= 1, and regular sampling
 *   (1 s = 1000 ms) takes 2 bytes instead of 8; irregular or sparse series still fit, up to 8 bytes for any gap
 *   below 2^53 (assertValidPoints keeps timestamps within ±2^52, so every gap is one).
 * - Values: raw little-endian Float64, copied byte for byte into the result arrays on read (a memcpy, no parsing).
 *   Sensor values rarely repeat exactly, so a Gorilla-style XOR code would cost a per-point decode loop for a
 *   modest gain; the column can change format with a schema migration.
 * - Expiries (retention, issue 23 §2), only for runs where some point expires: each point's time to live, its expiry
 *   minus its timestamp (Infinity: never), run-length coded as pairs of an unsigned LEB128 count and a little-endian
 *   Float64 (exact: both times are integers within ±2^52). A series' points usually share one ttl, so a block's
 *   expiries take about ten bytes. `expiresAt` is when its last point expires, null when one never does: the
 *   cleanup drops a row once that has passed, and reads and counts skip it.
 */
export interface EncodedRun {
  readonly count: number;
  readonly firstTs: number;
  readonly lastTs: number;
  readonly timestamps: Buffer;
  readonly values: Buffer;
  readonly expiries: Buffer | null;
  readonly expiresAt: number | null;
}

// Float64Array uses the platform's byte order, and the values blob is copied into one as is.
if (endianness() !== 'LE') throw new Error('the SQLite time-series format needs a little-endian platform');

const MAX_VARINT_BYTES = 8;

export function encodeRun(run: Run): EncodedRun {
  const ts = run.timestamps;
  const n = ts.length;
  const gaps = Buffer.allocUnsafe(Math.max(0, n - 1) * MAX_VARINT_BYTES);
  let p = 0;
  for (let i = 1; i < n; i++) {
    let gap = ts[i] - ts[i - 1];
    while (gap >= 0x80) {
      gaps[p++] = (gap % 0x80) | 0x80;
      gap = Math.floor(gap / 0x80);
    }
    gaps[p++] = gap;
  }
  return {
    count: n,
    firstTs: ts[0],
    lastTs: ts[n - 1],
    // Copies, so that a stored row never aliases a caller's array.
    timestamps: Buffer.from(gaps.subarray(0, p)),
    values: Buffer.from(run.values.buffer.slice(run.values.byteOffset, run.values.byteOffset + n * 8)),
    ...encodeExpiries(run),
  };
}

function encodeExpiries(run: Run): { expiries: Buffer | null; expiresAt: number | null } {
  const e = run.expiries;
  if (e === undefined) return { expiries: null, expiresAt: null };
  const ts = run.timestamps;
  // One pair per stretch of equal ttls: at most a pair per point.
  const out = Buffer.allocUnsafe(e.length * (MAX_VARINT_BYTES + 8));
  let at = 0;
  let last = -Infinity;
  let expiring = false;
  for (let i = 0; i < e.length; ) {
    const ttl = e[i] - ts[i];
    let j = i + 1;
    while (j < e.length && e[j] - ts[j] === ttl) j++;
    at = out.writeDoubleLE(ttl, writeVarint(out, at, j - i));
    if (ttl !== Infinity) expiring = true;
    // Timestamps increase, so the last point of a stretch of one ttl expires last.
    if (e[j - 1] > last) last = e[j - 1];
    i = j;
  }
  if (!expiring) return { expiries: null, expiresAt: null };
  return { expiries: Buffer.from(out.subarray(0, at)), expiresAt: last === Infinity ? null : last };
}

function writeVarint(out: Buffer, at: number, value: number): number {
  let v = value;
  while (v >= 0x80) {
    out[at++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  out[at++] = v;
  return at;
}

/** The expiry of each point of a run whose timestamps are decoded, from an expiries blob. */
export function decodeExpiries(timestamps: Float64Array, blob: Uint8Array): Float64Array {
  const expiries = new Float64Array(timestamps.length);
  const view = Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength);
  let p = 0;
  let i = 0;
  while (p < view.length) {
    let count = 0;
    let scale = 1;
    let b: number;
    do {
      b = view[p++];
      count += (b & 0x7f) * scale;
      scale *= 0x80;
    } while (b >= 0x80);
    const ttl = view.readDoubleLE(p);
    p += 8;
    for (const end = Math.min(i + count, expiries.length); i < end; i++) expiries[i] = timestamps[i] + ttl;
  }
  if (i !== expiries.length) throw new Error(`corrupt time-series expiries: ${i} of ${expiries.length} points`);
  return expiries;
}

/**
 * Writes the timestamps of a blob into `out` from index `at`, stopping before the first one after `until`; returns
 * how many it wrote (at most `count`).
 */
export function decodeTimestamps(
  firstTs: number,
  count: number,
  blob: Uint8Array,
  out: Float64Array,
  at: number,
  until = Infinity,
): number {
  let t = firstTs;
  if (t > until) return 0;
  out[at] = t;
  let p = 0;
  for (let i = 1; i < count; i++) {
    let b = blob[p++];
    let gap = b & 0x7f;
    if (b >= 0x80) {
      let scale = 0x80;
      do {
        b = blob[p++];
        gap += (b & 0x7f) * scale;
        scale *= 0x80;
      } while (b >= 0x80);
    }
    t += gap;
    if (t > until) return i;
    out[at + i] = t;
  }
  // A blob that does not hold exactly count - 1 gaps would otherwise decode to NaN or garbage without a word.
  if (p !== blob.length) throw new Error(`corrupt time-series blob: ${count} timestamps, ${blob.length} bytes`);
  return count;
}

/** Copies values [from, to) of a blob into `out` from index `at`, whatever the blob's alignment. */
export function copyValues(blob: Uint8Array, from: number, to: number, out: Float64Array, at: number): void {
  const bytes = new Uint8Array(out.buffer, out.byteOffset + at * 8, (to - from) * 8);
  bytes.set(blob.subarray(from * 8, to * 8));
}

export function decodeRun(firstTs: number, count: number, timestamps: Uint8Array, values: Uint8Array, expiries: Uint8Array | null = null): Run {
  const run = { timestamps: new Float64Array(count), values: new Float64Array(count) };
  decodeTimestamps(firstTs, count, timestamps, run.timestamps, 0);
  copyValues(values, 0, count, run.values, 0);
  return expiries === null ? run : { ...run, expiries: decodeExpiries(run.timestamps, expiries) };
}

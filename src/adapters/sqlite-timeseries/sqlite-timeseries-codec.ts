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
 */
export interface EncodedRun {
  readonly count: number;
  readonly firstTs: number;
  readonly lastTs: number;
  readonly timestamps: Buffer;
  readonly values: Buffer;
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
  };
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

export function decodeRun(firstTs: number, count: number, timestamps: Uint8Array, values: Uint8Array): Run {
  const run = { timestamps: new Float64Array(count), values: new Float64Array(count) };
  decodeTimestamps(firstTs, count, timestamps, run.timestamps, 0);
  copyValues(values, 0, count, run.values, 0);
  return run;
}

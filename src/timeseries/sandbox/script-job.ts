import { malformedResultError, ScriptFailure } from './script-errors';
import { WrappedScript } from './script-source';

/**
 * What crosses between the service and the sandbox thread: one job per sandbox call, its batch packed into one
 * Float64Array (layout in harness-source.ts) that is transferred, not copied; and one reply, whose result buffer
 * is decoded here defensively: the script could have tampered with the code that wrote it.
 */

export type JobKind = 'map' | 'filter' | 'reduce';

export interface ScriptJob {
  readonly id: number;
  readonly kind: JobKind;
  readonly script: WrappedScript;
  readonly input: Float64Array;
  readonly pointCount: number;
  /** js_range only; 0 otherwise. */
  readonly rangeCount: number;
  readonly arrayResult: boolean;
}

export type JobReply =
  | { readonly id: number; readonly ok: true; readonly output: ArrayBuffer; readonly wasmMemoryBytes: number }
  | { readonly id: number; readonly ok: false; readonly failure: ScriptFailure; readonly wasmMemoryBytes: number };

/** The thread's first message, once its QuickJS module is loaded. */
export interface ReadyMessage {
  readonly ready: true;
}

export function packPoints(timestamps: readonly number[], values: readonly number[]): Float64Array {
  const n = timestamps.length;
  const input = new Float64Array(2 * n);
  input.set(timestamps, 0);
  input.set(values, n);
  return input;
}

export function packRanges(ranges: readonly { timestamps: readonly number[]; values: readonly number[] }[]): {
  input: Float64Array;
  pointCount: number;
} {
  const n = ranges.reduce((sum, range) => sum + range.timestamps.length, 0);
  const input = new Float64Array(2 * n + ranges.length);
  let at = 0;
  ranges.forEach((range, r) => {
    input.set(range.timestamps, at);
    input.set(range.values, n + at);
    at += range.timestamps.length;
    input[2 * n + r] = at;
  });
  return { input, pointCount: n };
}

export function decodeNumbers(output: ArrayBuffer, count: number): number[] {
  if (output.byteLength !== count * 8) throw malformedResultError();
  return Array.from(new Float64Array(output));
}

export function decodeBooleans(output: ArrayBuffer, count: number): boolean[] {
  if (output.byteLength !== count) throw malformedResultError();
  return Array.from(new Uint8Array(output), (byte) => byte === 1);
}

export function decodeRangeResults(output: ArrayBuffer, rangeCount: number, arrayResult: boolean): (number | number[])[] {
  if (output.byteLength % 8 !== 0) throw malformedResultError();
  const flat = new Float64Array(output);
  if (!arrayResult) {
    if (flat.length !== rangeCount) throw malformedResultError();
    return Array.from(flat);
  }
  const results: number[][] = [];
  let at = 0;
  for (let r = 0; r < rangeCount; r++) {
    const length = flat[at++];
    if (!Number.isInteger(length) || length < 0 || at + length > flat.length) throw malformedResultError();
    results.push(Array.from(flat.subarray(at, at + length)));
    at += length;
  }
  if (at !== flat.length) throw malformedResultError();
  return results;
}

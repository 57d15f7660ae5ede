import { AppError } from '../../core/errors';
import { queryError } from './kairos-query-error';
import { PointStream, readAllValues, StreamBuilder, valueAt } from './point-stream';
import { RangeOptions } from './query-model';
import { QueryRun } from './query-run';
import { bucketing, forEachBucket } from './range-buckets';
import { SandboxCall, ScriptSandbox } from './script-port';

/**
 * js_function, js_filter and js_range (reference §6.5, after KC-SAS/kise-kairosdb-module), run through the
 * ScriptSandbox port, one sandbox call per group.
 */

/** The kise module's `kise.kairosdb.script_aggregator.max_batch`, per js_range bucket (its sample config says 1000). */
export const MAX_SCRIPT_RANGE_POINTS = 100_000;

/** js_function: each point replaced by the script's number for (value, timestamp), at the same time. */
export async function jsFunction(s: PointStream, script: string, sandbox: ScriptSandbox, run: QueryRun): Promise<PointStream> {
  if (s.ts.length === 0) return s;
  const results = await callSandbox(() => sandbox.mapPoints(script, Array.from(s.ts), Array.from(readAllValues(s)), callOf(run)));
  return { ts: s.ts, vals: Float64Array.from(expectNumbers(results, s.ts.length)) };
}

/** js_filter: KEEPS the points whose predicate is true (the opposite of the core `filter`, which drops). */
export async function jsFilter(s: PointStream, script: string, sandbox: ScriptSandbox, run: QueryRun): Promise<PointStream> {
  if (s.ts.length === 0) return s;
  const keep = await callSandbox(() => sandbox.filterPoints(script, Array.from(s.ts), Array.from(readAllValues(s)), callOf(run)));
  if (!Array.isArray(keep) || keep.length !== s.ts.length) throw queryError('Script result should be boolean, one per point');
  const out = new StreamBuilder(s.ts.length);
  for (let i = 0; i < keep.length; i++) if (keep[i] === true) out.pushFrom(s, i);
  return out.finish();
}

/** js_range: one script result per bucket at the bucket's return time; an array when array_result is set. */
export async function jsRange(
  s: PointStream, range: RangeOptions, script: string, arrayResult: boolean, sandbox: ScriptSandbox, run: QueryRun,
): Promise<PointStream> {
  const ranges: { timestamps: number[]; values: number[] }[] = [];
  const times: number[] = [];
  await forEachBucket(s, bucketing(range), run, (from, to, returnTime) => {
    if (to - from > MAX_SCRIPT_RANGE_POINTS) {
      throw queryError(`Number of points in aggregation range exceeds configured limit of ${MAX_SCRIPT_RANGE_POINTS}`);
    }
    const values: number[] = [];
    for (let i = from; i < to; i++) values.push(valueAt(s, i));
    ranges.push({ timestamps: Array.from(s.ts.subarray(from, to)), values });
    times.push(returnTime);
  });
  if (ranges.length === 0) return s;
  const results = await callSandbox(() => sandbox.reduceRanges(script, ranges, arrayResult, callOf(run)));
  if (!Array.isArray(results) || results.length !== ranges.length) throw queryError('Script result should be one per range');
  const out = new StreamBuilder(results.length);
  results.forEach((result, i) => {
    if (arrayResult && Array.isArray(result)) out.pushArray(times[i], expectNumbers(result, result.length));
    else if (!arrayResult && typeof result === 'number') out.push(times[i], result);
    else throw queryError(`Script result should be ${arrayResult ? 'an array of numbers' : 'number'}, got ${describe(result)}`);
  });
  return out.finish();
}

const callOf = (run: QueryRun): SandboxCall => ({ tenant: run.tenant, signal: run.signal });

/**
 * A script's failure is the query's: a SCRIPT_* AppError from the sandbox becomes KairosDB's `{"errors": [...]}`.
 * The end of the run (out of time, cancelled) passes as it is.
 */
async function callSandbox<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof AppError && err.status < 500 && err.code.startsWith('SCRIPT_')) throw queryError(err.message);
    throw err;
  }
}

function expectNumbers(results: unknown, length: number): number[] {
  if (!Array.isArray(results) || results.length !== length) throw queryError('Script result should be one number per point');
  for (const r of results) if (typeof r !== 'number') throw queryError(`Script result should be number, got ${describe(r)}`);
  return results as number[];
}

const describe = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

import { ScriptSandbox } from '../query/script-port';
import { resolveSandboxLimits, SandboxLimits } from './limits';
import { DEFAULT_SANDBOX_POOL, SandboxPoolOptions, startSandboxPool } from './sandbox-pool';
import { SandboxStats } from './sandbox-worker';
import { failureError, scriptTooLongError, tooManyPointsError } from './script-errors';
import {
  decodeBooleans, decodeNumbers, decodeRangeResults, JobReply, packPoints, packRanges,
} from './script-job';
import { POINT_PARAMETERS, RANGE_PARAMETERS, wrapScript } from './script-source';

/**
 * The ScriptSandbox of js_function, js_filter and js_range (reference §6.5): QuickJS compiled to WebAssembly
 * (quickjs-emscripten), on a few worker threads shared fairly between callers (sandbox-pool.ts, issue 10), in a
 * fresh WebAssembly instance per call (issue 3: a real sandbox, not node:vm). A call costs about 5 ms plus its
 * points (about 3M points/s for js_function).
 *
 * What a script gets: ECMAScript builtins and its parameters, nothing of the host (no require, process, fetch,
 * timers, modules or file system: no host function is ever installed). What it is held to: SandboxLimits.
 *
 * - js_function: `value` and `timestamp` (epoch ms) per point; must return a number.
 * - js_filter: the same; must return a boolean, true keeps the point.
 * - js_range: per range, both `values`, an iterator of points (`hasNext()`, `next()`, and `for…of`), and
 *   `valueArray`, the range's values as a plain array of numbers; a point is `{timestamp, value}` with the module's
 *   `getTimestamp()`, `getDoubleValue()` and `getLongValue()`, and `valueArray.size()` / `.get(i)` answer the
 *   module's java.util.List calls. The module passed one or the other by `allocate_array`; the port has no such
 *   flag, so both are always there. Returns a number, or with arrayResult an array of numbers.
 *
 * NaN and ±Infinity are numbers: they pass, as in the module (whose NaN check never fires).
 */
export interface QuickJsSandbox extends ScriptSandbox {
  stats(): SandboxStats;
  /** Terminates the sandbox threads; calls still queued are rejected. Idempotent. */
  close(): Promise<void>;
}

export function createQuickJsSandbox(
  overrides: Partial<SandboxLimits> = {}, pool: SandboxPoolOptions = DEFAULT_SANDBOX_POOL,
): QuickJsSandbox {
  const limits = resolveSandboxLimits(overrides);
  const worker = startSandboxPool(limits, pool);

  function checkScript(script: string): void {
    const bytes = Buffer.byteLength(script, 'utf8');
    if (bytes > limits.maxScriptBytes) throw scriptTooLongError(limits, bytes);
  }

  function checkPoints(timestamps: readonly number[], values: readonly number[]): void {
    if (timestamps.length !== values.length) throw new Error('sandbox call with as many timestamps as values expected');
    if (timestamps.length > limits.maxPointsPerCall) throw tooManyPointsError(limits);
  }

  const outputOf = (reply: JobReply): ArrayBuffer => {
    if (!reply.ok) throw failureError(reply.failure);
    return reply.output;
  };

  return {
    async mapPoints(script, timestamps, values, call) {
      checkScript(script);
      checkPoints(timestamps, values);
      // Like the module, which compiles on the first point: no points, no script run, no script error.
      if (timestamps.length === 0) return [];
      const reply = await worker.run({
        kind: 'map', script: wrapScript(script, POINT_PARAMETERS), input: packPoints(timestamps, values),
        pointCount: timestamps.length, rangeCount: 0, arrayResult: false,
      }, call);
      return decodeNumbers(outputOf(reply), timestamps.length);
    },

    async filterPoints(script, timestamps, values, call) {
      checkScript(script);
      checkPoints(timestamps, values);
      if (timestamps.length === 0) return [];
      const reply = await worker.run({
        kind: 'filter', script: wrapScript(script, POINT_PARAMETERS), input: packPoints(timestamps, values),
        pointCount: timestamps.length, rangeCount: 0, arrayResult: false,
      }, call);
      return decodeBooleans(outputOf(reply), timestamps.length);
    },

    async reduceRanges(script, ranges, arrayResult, call) {
      checkScript(script);
      for (const range of ranges) checkPoints(range.timestamps, range.values);
      const total = ranges.reduce((sum, range) => sum + range.timestamps.length, 0);
      if (total > limits.maxPointsPerCall || ranges.length > limits.maxPointsPerCall) throw tooManyPointsError(limits);
      if (ranges.length === 0) return [];
      const { input, pointCount } = packRanges(ranges);
      const reply = await worker.run({
        kind: 'reduce', script: wrapScript(script, RANGE_PARAMETERS), input, pointCount, rangeCount: ranges.length, arrayResult,
      }, call);
      return decodeRangeResults(outputOf(reply), ranges.length, arrayResult);
    },

    stats: () => worker.stats(),
    close: () => worker.close(),
  };
}

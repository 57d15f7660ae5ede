import { performance } from 'node:perf_hooks';
import { QuickJSContext, QuickJSHandle, QuickJSWASMModule, Scope } from 'quickjs-emscripten-core';
import { HARNESS_SOURCE, RESULT_ERROR_NAME } from './harness-source';
import { callHeapBytes, SandboxLimits } from './limits';
import { memoryFailure, scriptExecutionFailure, stackFailure, timeoutFailure } from './script-errors';
import { ScriptFailure } from './script-errors';
import { ScriptJob } from './script-job';
import { SCRIPT_FILE_NAME, WrappedScript } from './script-source';

export type JobOutcome = { ok: true; output: ArrayBuffer } | { ok: false; failure: ScriptFailure };

/**
 * Runs one job in a QuickJS runtime and context of its own, and disposes every handle, the context and the runtime
 * before returning (a leaked handle would abort QuickJS's JS_FreeRuntime).
 *
 * The runtime gets the call's limits: a stack limit, a memory limit, and an interrupt handler that stops the script
 * once cpuTimeMs have passed since the job started.
 * No host function is ever given to the context: the script sees only ECMAScript builtins.
 */
export function runScriptJob(
  module: QuickJSWASMModule, job: ScriptJob, limits: SandboxLimits,
  /** Whether the call's WebAssembly memory has grown to (about) its maximum. */
  memoryExhausted: () => boolean,
): JobOutcome {
  const deadline = performance.now() + limits.cpuTimeMs;
  let interrupted = false;
  const runtime = module.newRuntime();
  try {
    // Weak under Emscripten (it counts allocations, not bytes) but it refuses any single oversized allocation early;
    // the call's WebAssembly memory maximum is the real bound (quickjs-worker.ts).
    runtime.setMemoryLimit(callHeapBytes(limits, job.pointCount, job.rangeCount));
    runtime.setMaxStackSize(limits.maxStackBytes);
    runtime.setInterruptHandler(() => (interrupted ||= performance.now() > deadline));
    const context = runtime.newContext();
    try {
      return Scope.withScope((scope) => runInContext(context, scope, job, limits, { interrupted: () => interrupted, memoryExhausted }));
    } finally {
      context.dispose();
    }
  } finally {
    runtime.dispose();
  }
}

interface Exhaustion {
  interrupted(): boolean;
  memoryExhausted(): boolean;
}

function runInContext(context: QuickJSContext, scope: Scope, job: ScriptJob, limits: SandboxLimits, exhaustion: Exhaustion): JobOutcome {
  // The harness is evaluated before the script is compiled, so it captures the builtins unmodified.
  const harness = context.evalCode(HARNESS_SOURCE, 'harness.js');
  if (harness.error) {
    scope.manage(harness.error);
    // On a loaded machine the harness itself can meet the call's deadline or a memory left short: the script's
    // limits, reported as such, not a fault of ours.
    if (exhaustion.interrupted()) return { ok: false, failure: timeoutFailure(limits) };
    if (exhaustion.memoryExhausted()) return { ok: false, failure: memoryFailure(limits) };
    throw new Error(`sandbox harness failed to start: ${describeThrown(context, harness.error, job.script)}`);
  }
  const run = scope.manage(harness.value);
  const compiled = context.evalCode(job.script.source, SCRIPT_FILE_NAME);
  if (compiled.error) return { ok: false, failure: classify(context, scope.manage(compiled.error), job, limits, exhaustion) };
  const fn = scope.manage(compiled.value);

  const args = [
    scope.manage(context.newString(job.kind)),
    fn,
    scope.manage(context.newArrayBuffer(job.input.buffer)),
    scope.manage(context.newNumber(job.pointCount)),
    scope.manage(context.newNumber(job.rangeCount)),
    job.arrayResult ? context.true : context.false,
  ];
  const result = context.callFunction(run, context.undefined, ...args);
  if (result.error) return { ok: false, failure: classify(context, scope.manage(result.error), job, limits, exhaustion) };
  const bytes = scope.manage(context.getArrayBuffer(scope.manage(result.value)));
  // The view points into wasm memory, which the next allocation may move: copy it out now.
  return { ok: true, output: bytes.value.slice().buffer };
}

function classify(
  context: QuickJSContext, error: QuickJSHandle, job: ScriptJob, limits: SandboxLimits, exhaustion: Exhaustion,
): ScriptFailure {
  // Checked first: the error of an interrupted script is an uncatchable InternalError("interrupted").
  if (exhaustion.interrupted()) return timeoutFailure(limits);
  // With no memory left even for the InternalError("out of memory"), QuickJS throws null instead.
  if (context.sameValue(error, context.null) && exhaustion.memoryExhausted()) return memoryFailure(limits);
  const thrown = readThrown(context, error);
  if (thrown.message === 'out of memory') return memoryFailure(limits);
  if (thrown.message === 'stack overflow') return stackFailure(limits);
  if (thrown.name === RESULT_ERROR_NAME && thrown.message !== undefined) return { code: 'SCRIPT_ERROR', message: thrown.message };
  return scriptExecutionFailure(describeThrown(context, error, job.script));
}

interface Thrown {
  name?: string;
  message?: string;
  stack?: string;
  /** For a thrown primitive. */
  text?: string;
}

/**
 * Reads an error's fields one by one as strings. A getter on a thrown object runs script code, still under the
 * interrupt handler and memory limit; one that throws leaves its field out.
 */
function readThrown(context: QuickJSContext, error: QuickJSHandle): Thrown {
  const type = context.typeof(error);
  if (type !== 'object' && type !== 'function') return { text: String(context.dump(error)) };
  const field = (key: string): string | undefined => {
    try {
      const handle = context.getProp(error, key);
      try {
        return context.typeof(handle) === 'string' ? context.getString(handle) : undefined;
      } finally {
        handle.dispose();
      }
    } catch {
      return undefined;
    }
  };
  return { name: field('name'), message: field('message'), stack: field('stack') };
}

const MAX_DETAIL_CHARS = 300;

/** `SyntaxError: unexpected token in expression: ';' (line 2, column 7)`, located in the script's own lines. */
function describeThrown(context: QuickJSContext, error: QuickJSHandle, script: WrappedScript): string {
  const thrown = readThrown(context, error);
  const what = thrown.text !== undefined
    ? `uncaught ${thrown.text}`
    : [thrown.name, thrown.message].filter((part) => part !== undefined && part !== '').join(': ') || 'uncaught exception';
  const detail = `${what}${locate(thrown.stack, script)}`;
  return detail.length > MAX_DETAIL_CHARS ? `${detail.slice(0, MAX_DETAIL_CHARS)}…` : detail;
}

function locate(stack: string | undefined, script: WrappedScript): string {
  const match = stack === undefined ? null : new RegExp(`${SCRIPT_FILE_NAME.replace('.', '\\.')}:(\\d+)(?::(\\d+))?`).exec(stack);
  if (match === null) return '';
  const line = Number(match[1]);
  if (line > script.lineCount) return ' (at the end of the script)';
  if (match[2] === undefined) return ` (line ${line})`;
  const column = line === 1 ? Math.max(1, Number(match[2]) - script.firstLineOffset) : Number(match[2]);
  return ` (line ${line}, column ${column})`;
}

import { AppError } from '../../core/errors';
import { SandboxLimits } from './limits';

/**
 * The sandbox's client-facing errors, all 400: the script is the client's. Messages follow
 * KC-SAS/kise-kairosdb-module where it has one (reference §6.5); the limits, which the module lacks, say which limit.
 */

/** The AppError codes a job can fail with; anything else from the thread is an internal error. */
export const SCRIPT_FAILURE_CODES = [
  'SCRIPT_ERROR',
  'SCRIPT_TIMEOUT',
  'SCRIPT_MEMORY_LIMIT',
  'SCRIPT_STACK_OVERFLOW',
] as const;
export type ScriptFailureCode = (typeof SCRIPT_FAILURE_CODES)[number];

export interface ScriptFailure {
  readonly code: ScriptFailureCode;
  readonly message: string;
}

/** The module's ScriptingAggregator.ERROR_IN_SCRIPT, followed by QuickJS's reason and the script location. */
export const SCRIPT_EXECUTION_ERROR = 'Error during script execution, please check the syntax';

export const scriptExecutionFailure = (detail: string): ScriptFailure => ({
  code: 'SCRIPT_ERROR',
  message: `${SCRIPT_EXECUTION_ERROR}: ${detail}`,
});

export const timeoutFailure = (limits: SandboxLimits): ScriptFailure => ({
  code: 'SCRIPT_TIMEOUT',
  message: `Script execution exceeded the time limit of ${limits.cpuTimeMs} ms`,
});

export const memoryFailure = (limits: SandboxLimits): ScriptFailure => ({
  code: 'SCRIPT_MEMORY_LIMIT',
  message: `Script execution ran out of memory: the limit is ${formatBytes(limits.memoryBytes)} per call, on top of the points it is given`,
});

export const stackFailure = (limits: SandboxLimits): ScriptFailure => ({
  code: 'SCRIPT_STACK_OVERFLOW',
  message: `Script execution exceeded the stack limit of ${formatBytes(limits.maxStackBytes)} (recursion too deep)`,
});

export const failureError = (failure: ScriptFailure): AppError => new AppError(failure.code, failure.message);

export const scriptTooLongError = (limits: SandboxLimits, bytes: number): AppError =>
  new AppError('SCRIPT_TOO_LONG', `Script is ${bytes} bytes long, over the limit of ${limits.maxScriptBytes} bytes`);

/** Worded like the module's max_batch error: `Number of points in aggregation range exceeds configured limit of N`. */
export const tooManyPointsError = (limits: SandboxLimits): AppError =>
  new AppError('SCRIPT_INPUT_TOO_LARGE', `Number of points in script call exceeds configured limit of ${limits.maxPointsPerCall}`);

/** Only a script that tampered with the harness's builtins can make its results unreadable. */
export const malformedResultError = (): AppError =>
  new AppError('SCRIPT_ERROR', `${SCRIPT_EXECUTION_ERROR}: the script's results could not be read (were builtins modified?)`);

function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/**
 * The JavaScript sandbox that runs the scripts of js_function, js_filter and js_range (reference §6.5, after
 * KC-SAS/kise-kairosdb-module). It lives in src/timeseries/sandbox/; the engine only knows this port.
 *
 * A script that fails (syntax error, exception, time or memory limit, wrong result type) comes back as a thrown
 * AppError (for example code SCRIPT_ERROR); the engine turns a 4xx one into a KairosQueryError so the client sees
 * KairosDB's `{"errors": [...]}` body.
 */
export interface ScriptSandbox {
  /** js_function: one number per input point (same order), from `script` with variables value, timestamp. */
  mapPoints(script: string, timestamps: number[], values: number[], call?: SandboxCall): Promise<number[]>;
  /** js_filter: true = KEEP the point. */
  filterPoints(script: string, timestamps: number[], values: number[], call?: SandboxCall): Promise<boolean[]>;
  /** js_range: one result per range; each result a number, or an array of numbers when arrayResult. */
  reduceRanges(
    script: string,
    ranges: { timestamps: number[]; values: number[] }[],
    arrayResult: boolean,
    call?: SandboxCall,
  ): Promise<(number | number[])[]>;
}

/** Who makes a call, and until when it is wanted (issue 10 §2: the sandbox is shared fairly between callers). */
export interface SandboxCall {
  /** The caller's tenant: calls of different tenants take turns. */
  readonly tenant?: string;
  /** Aborted when the query ends early: the call is dropped and rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/**
 * The script sandbox of js_function, js_filter and js_range: QuickJS in WebAssembly, in a worker thread, with the
 * limits of SCRIPT_SANDBOX_LIMITS. It implements the query engine's ScriptSandbox port.
 */
export { createQuickJsSandbox } from './quickjs-sandbox';
export type { QuickJsSandbox } from './quickjs-sandbox';
export { SCRIPT_SANDBOX_LIMITS } from './limits';
export type { SandboxLimits } from './limits';
export type { SandboxStats } from './sandbox-worker';

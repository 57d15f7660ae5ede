/**
 * Every limit of the script sandbox, in one object with its unit in each name (issue 3: "CPU-time and memory limits
 * per query"). `createQuickJsSandbox(overrides)` takes a partial copy; docs/data-store.md names these.
 */
const KiB = 1024;
const MiB = 1024 * KiB;

export const SCRIPT_SANDBOX_LIMITS = Object.freeze({
  /**
   * Time one sandbox call (one js_* aggregator over one group) may run, measured from the moment the sandbox thread
   * starts it. That thread runs nothing else, so this is the call's CPU time. QuickJS's interrupt handler enforces it.
   */
  cpuTimeMs: 1000,
  /**
   * QuickJS consults the interrupt handler between bytecodes only, so a loop around a long native builtin can
   * overrun cpuTimeMs. A call still running this long after its deadline has its worker thread terminated.
   */
  hardKillGraceMs: 1000,
  /**
   * Heap for the script's own objects and strings in one call. Enforced as the maximum size of the call's own
   * WebAssembly memory (see callMemoryBytes), because QuickJS's own memory limit under Emscripten counts
   * allocations rather than bytes and never sees typed arrays (quickjs-emscripten issues #255, #271).
   */
  memoryBytes: 32 * MiB,
  /**
   * Heap granted per point (and per range) of the batch on top of memoryBytes: the input copy (16 B), the results
   * (8 B) and js_range's `valueArray` (8 B per element plus growth), so a big batch does not eat the script's share.
   */
  batchBytesPerPoint: 48,
  /**
   * QuickJS stack (deep recursion stops with a clear error). The worker thread's native stack is sized from this
   * (see sandbox-worker.ts): wasm frames use far more native stack than QuickJS counts.
   */
  maxStackBytes: 256 * KiB,
  /** Points in one call; for js_range, the sum over its ranges. */
  maxPointsPerCall: 1_000_000,
  /** Length of a script, UTF-8 bytes. */
  maxScriptBytes: 10 * KiB,
});

export type SandboxLimits = { readonly [K in keyof typeof SCRIPT_SANDBOX_LIMITS]: number };

/**
 * The QuickJS build's own initial WebAssembly memory (Emscripten's INITIAL_MEMORY): its 5 MiB C stack, static
 * data and first heap. A call's memory starts at this size.
 */
export const WASM_BASE_BYTES = 16 * MiB;
export const WASM_PAGE_BYTES = 64 * KiB;

/** Heap for one call: the script's share plus the batch's. */
export const callHeapBytes = (limits: SandboxLimits, pointCount: number, rangeCount: number): number =>
  limits.memoryBytes + (pointCount + rangeCount) * limits.batchBytesPerPoint;

/** The maximum of one call's WebAssembly memory, in 64 KiB pages: growing past it fails as QuickJS "out of memory". */
export const callWasmMaximumPages = (limits: SandboxLimits, pointCount: number, rangeCount: number): number =>
  Math.ceil((WASM_BASE_BYTES + callHeapBytes(limits, pointCount, rangeCount)) / WASM_PAGE_BYTES);

export const WASM_BASE_PAGES = WASM_BASE_BYTES / WASM_PAGE_BYTES;

/** The defaults with `overrides` applied; each value must be a positive finite number. */
export function resolveSandboxLimits(overrides: Partial<SandboxLimits> = {}): SandboxLimits {
  const limits = { ...SCRIPT_SANDBOX_LIMITS, ...overrides };
  for (const [name, value] of Object.entries(limits)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new RangeError(`sandbox limit ${name} must be a positive number, got ${String(value)}`);
    }
  }
  return Object.freeze(limits);
}

/**
 * The sandbox thread (started by sandbox-worker.ts). Each job gets a fresh instance of the QuickJS WebAssembly
 * module with a fresh linear memory, whose maximum is the job's memory limit: nothing of one call survives into
 * the next, a memory bomb ends as QuickJS's "out of memory" at that maximum, and the memory goes back when the
 * call ends. The module is compiled once; an instance costs about 3 ms.
 */
import { readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import RELEASE_SYNC from '@jitl/quickjs-wasmfile-release-sync';
import { newQuickJSWASMModuleFromVariant, newVariant } from 'quickjs-emscripten-core';
import { callWasmMaximumPages, SandboxLimits, WASM_BASE_PAGES, WASM_PAGE_BYTES } from './limits';
import { runScriptJob } from './run-script-job';
import { stackFailure } from './script-errors';
import { JobReply, ReadyMessage, ScriptJob } from './script-job';

/** The part of the WebAssembly JS API used here; the project's `lib` (no DOM) does not declare it. */
interface WasmApi {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  Memory: new (descriptor: { initial: number; maximum: number }) => { readonly buffer: ArrayBuffer };
}
type WasmModule = { readonly wasmModule?: never };
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

const port = parentPort;
if (port === null) throw new Error('quickjs-worker.ts runs only as a worker thread');
const limits = (workerData as { limits: SandboxLimits }).limits;

/**
 * Scripts are batch work; the service's own thread answers requests. When the CPU is short, the requests go first
 * (issue 10: a tenant's endless scripts took a core from everyone's status calls). On Linux a nice value belongs to
 * a thread, and setpriority(PRIO_PROCESS, 0) sets the calling thread's; elsewhere it would lower the whole process.
 * Set once the thread is ready, so that starting it (compiling QuickJS) is not slowed down.
 */
const SANDBOX_THREAD_NICE = 10;

function lowerThreadPriority(): void {
  if (process.platform !== 'linux') return;
  try {
    setPriority(SANDBOX_THREAD_NICE);
  } catch {
    // Not allowed here: the thread keeps the process's priority.
  }
}

void wasm.compile(readFileSync(require.resolve('@jitl/quickjs-wasmfile-release-sync/wasm'))).then((compiled) => {
  // Jobs arrive one at a time (sandbox-worker.ts waits for each reply), so handlers never overlap.
  // A rejection is left unhandled on purpose: it ends the thread, which the service sees as a failed call.
  port.on('message', (job: ScriptJob) => {
    void handle(compiled, job).then((reply) => port.postMessage(reply, reply.ok ? [reply.output] : []));
  });
  lowerThreadPriority();
  port.postMessage({ ready: true } satisfies ReadyMessage);
});

/** Host errors other than V8's stack overflow are rethrown. */
async function handle(compiled: WasmModule, job: ScriptJob): Promise<JobReply> {
  const maximumPages = callWasmMaximumPages(limits, job.pointCount, job.rangeCount);
  const memory = new wasm.Memory({ initial: WASM_BASE_PAGES, maximum: maximumPages });
  // A failed growth request leaves the memory short of its maximum by up to that request.
  const memoryExhausted = () => memory.buffer.byteLength >= 0.75 * maximumPages * WASM_PAGE_BYTES;
  const module = await newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmModule: compiled, wasmMemory: memory }));
  try {
    return { id: job.id, ...runScriptJob(module, job, limits, memoryExhausted), wasmMemoryBytes: memory.buffer.byteLength };
  } catch (err) {
    // V8's own stack overflow inside wasm: recursion that QuickJS's stack check did not see. The instance is
    // dropped with the rest of the call.
    if (err instanceof RangeError && /call stack/i.test(err.message)) return { id: job.id, ok: false, failure: stackFailure(limits), wasmMemoryBytes: memory.buffer.byteLength };
    throw err;
  }
}

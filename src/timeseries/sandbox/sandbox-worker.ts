import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { SandboxLimits } from './limits';
import { timeoutFailure } from './script-errors';
import { JobReply, ReadyMessage, ScriptJob } from './script-job';

/**
 * Owns one sandbox thread (quickjs-worker.ts) and runs jobs on it one at a time, in call order; sandbox-pool.ts
 * shares a few of them between callers.
 *
 * Why a thread: QuickJS's interrupt handler runs only between bytecodes, so `while (1) Array(1e6).fill(0)` can run
 * for minutes past its deadline inside native builtins; only terminating the thread stops it for sure. The
 * thread also keeps a running script off the service's event loop, and gives wasm the native stack it needs.
 */
export interface SandboxWorker {
  run(job: Omit<ScriptJob, 'id'>): Promise<JobReply>;
  stats(): SandboxStats;
  /** Rejects queued jobs and terminates the thread; idempotent. */
  close(): Promise<void>;
}

export interface SandboxStats {
  /** Calls that ran to a reply (success or script failure). */
  readonly jobs: number;
  /** Threads replaced because a call outlived cpuTimeMs + hardKillGraceMs, or the thread died. */
  readonly restarts: number;
  /** Size the last call's WebAssembly memory grew to; every call starts with a fresh one of WASM_BASE_BYTES. */
  readonly wasmMemoryBytes: number;
}

/**
 * Native stack of the thread. wasm frames take far more native stack than QuickJS counts against its own limit.
 * Measured with QuickJS 2025-09-13: at a 512 KiB QuickJS limit, deeply nested source (`((((…`, `a=>a=>…`) overflowed
 * an 8 MiB native stack before QuickJS noticed; at 256 KiB, 8 MiB sufficed for every case tried. 64 times the
 * QuickJS limit (16 MiB by default) leaves twice that. Should V8's stack still run out, the call fails as a stack
 * overflow and its wasm instance is dropped (quickjs-worker.ts).
 */
const nativeStackMb = (limits: SandboxLimits): number => Math.max(16, Math.ceil((64 * limits.maxStackBytes) / (1024 * 1024)));

/** A thread that has not loaded QuickJS by then (tsx and wasm compilation take well under a second) is dropped. */
const THREAD_START_TIMEOUT_MS = 10_000;

interface Pending {
  readonly job: ScriptJob;
  readonly resolve: (reply: JobReply) => void;
  readonly reject: (err: Error) => void;
}

export function startSandboxWorker(limits: SandboxLimits): SandboxWorker {
  const queue: Pending[] = [];
  let nextId = 1;
  /** The thread, from its spawn until it is dropped; events of a dropped thread are ignored. */
  let thread: { worker: Worker; ready: Promise<void> } | undefined;
  /** The job the thread is running (or is about to run, while the thread starts). */
  let active: { pending: Pending; timer?: NodeJS.Timeout } | undefined;
  let closed = false;
  let jobs = 0;
  let restarts = 0;
  let wasmMemoryBytes = 0;

  const workerFile = path.join(__dirname, `quickjs-worker${path.extname(__filename)}`);

  function spawn(): { worker: Worker; ready: Promise<void> } {
    const worker = new Worker(workerFile, {
      workerData: { limits },
      execArgv: typeScriptLoaderArgs(workerFile),
      resourceLimits: { stackSizeMb: nativeStackMb(limits) },
    });
    const ready = new Promise<void>((resolve, reject) => {
      worker.once('message', (message: ReadyMessage) => (message.ready === true ? resolve() : reject(new Error('script sandbox thread did not start'))));
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`script sandbox thread exited with code ${code}`)));
    });
    const startTimer = setTimeout(() => died(worker, new Error('script sandbox thread did not start in time')), THREAD_START_TIMEOUT_MS);
    ready.then(() => worker.on('message', (reply: JobReply) => settle(worker, reply)), () => undefined)
      .finally(() => clearTimeout(startTimer));
    worker.on('error', (err) => died(worker, err));
    worker.on('exit', (code) => died(worker, new Error(`script sandbox thread exited with code ${code}`)));
    return { worker, ready };
  }

  function dropThread(): void {
    if (thread === undefined) return;
    const { worker } = thread;
    thread = undefined;
    void worker.terminate();
  }

  function finish(): Pending | undefined {
    const pending = active?.pending;
    clearTimeout(active?.timer);
    active = undefined;
    return pending;
  }

  function settle(worker: Worker, reply: JobReply): void {
    if (thread?.worker !== worker || active?.pending.job.id !== reply.id) return;
    const pending = finish() as Pending;
    jobs++;
    wasmMemoryBytes = reply.wasmMemoryBytes;
    worker.unref();
    pending.resolve(reply);
    pump();
  }

  /** The thread failed to start or died under a job. */
  function died(worker: Worker, err: Error): void {
    if (thread?.worker !== worker) return;
    dropThread();
    restarts++;
    finish()?.reject(err);
    pump();
  }

  function hardKill(pending: Pending): void {
    if (active?.pending !== pending) return;
    dropThread();
    restarts++;
    finish();
    pending.resolve({ id: pending.job.id, ok: false, failure: timeoutFailure(limits), wasmMemoryBytes });
    pump();
  }

  function pump(): void {
    if (closed || active !== undefined || queue.length === 0) return;
    const pending = queue.shift() as Pending;
    active = { pending };
    thread ??= spawn();
    const { worker, ready } = thread;
    ready.then(
      () => {
        if (active?.pending !== pending || thread?.worker !== worker) return;
        // The clock starts only now, so the thread's start-up never counts against the script.
        active.timer = setTimeout(() => hardKill(pending), limits.cpuTimeMs + limits.hardKillGraceMs);
        worker.ref();
        worker.postMessage(pending.job, [pending.job.input.buffer as ArrayBuffer]);
      },
      (err: unknown) => died(worker, err instanceof Error ? err : new Error(String(err))),
    );
  }

  return {
    run(job) {
      if (closed) return Promise.reject(new Error('script sandbox closed'));
      return new Promise<JobReply>((resolve, reject) => {
        queue.push({ job: { ...job, id: nextId++ }, resolve, reject });
        pump();
      });
    },
    stats: () => ({ jobs, restarts, wasmMemoryBytes }),
    async close() {
      if (closed) return;
      closed = true;
      const closedError = new Error('script sandbox closed');
      for (const pending of queue.splice(0)) pending.reject(closedError);
      finish()?.reject(closedError);
      const worker = thread?.worker;
      thread = undefined;
      if (worker !== undefined) await worker.terminate();
    },
  };
}

/**
 * Compiled, the thread is a .js file. From sources (tests run TypeScript through tsx's require hook, which a new
 * thread does not inherit) it needs tsx to load a .ts file.
 */
function typeScriptLoaderArgs(workerFile: string): string[] {
  if (!workerFile.endsWith('.ts')) return process.execArgv;
  return [...process.execArgv, '--require', require.resolve('tsx/cjs')];
}

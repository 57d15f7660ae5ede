import { createFairSlots } from '../../ratelimit/fair-slots';
import { SandboxCall } from '../query/script-port';
import { SandboxLimits } from './limits';
import { SandboxStats, startSandboxWorker } from './sandbox-worker';
import { JobReply, ScriptJob } from './script-job';

/**
 * A few sandbox threads shared fairly between tenants (issue 10 §2). Each thread runs one call at a time under the
 * per-call limits (limits.ts); a tenant runs at most `perTenant` calls at once and its others wait, and a free
 * thread goes to the waiting tenant that runs the fewest calls, in turns. So however many calls a hostile tenant
 * queues, another tenant's call waits at most for one running call to end: cpuTimeMs (plus hardKillGraceMs when
 * a call must be killed), when every thread is busy.
 */
export interface SandboxPoolOptions {
  /** Threads (each started on its first call, kept afterwards). */
  readonly workers: number;
  /** Calls of one tenant running at once. */
  readonly perTenant: number;
}

export const DEFAULT_SANDBOX_POOL: SandboxPoolOptions = { workers: 2, perTenant: 1 };

export interface SandboxPool {
  /**
   * Runs a job once the caller's turn comes. An aborted signal drops a waiting call, and abandons a running one
   * (its thread stays busy until the call ends, which its limits bound); both reject with the signal's reason.
   */
  run(job: Omit<ScriptJob, 'id'>, call?: SandboxCall): Promise<JobReply>;
  stats(): SandboxStats;
  /** Rejects waiting calls and terminates every thread; idempotent. */
  close(): Promise<void>;
}

export function startSandboxPool(limits: SandboxLimits, options: SandboxPoolOptions = DEFAULT_SANDBOX_POOL): SandboxPool {
  const workers = Array.from({ length: options.workers }, () => startSandboxWorker(limits));
  const idle = [...workers];
  const slots = createFairSlots({ slots: options.workers, perTenant: options.perTenant, queuePerTenant: Infinity, maxWaitMs: Infinity });
  /** Rejects the calls still waiting for a thread when the pool closes. */
  const closing = new AbortController();
  let lastWasmMemoryBytes = 0;

  return {
    async run(job, call = {}) {
      const signal = call.signal === undefined ? closing.signal : AbortSignal.any([closing.signal, call.signal]);
      const release = await slots.acquire(call.tenant ?? 'anyone', signal);
      // A slot is free only while a thread is: take it, and give it back before the slot.
      const worker = idle.pop();
      if (worker === undefined) {
        release();
        throw new Error('script sandbox pool: a slot without an idle thread');
      }
      const reply = worker.run(job).then((r) => {
        lastWasmMemoryBytes = r.wasmMemoryBytes;
        return r;
      }).finally(() => {
        idle.push(worker);
        release();
      });
      return untilAborted(reply, signal);
    },

    stats() {
      const all = workers.map((w) => w.stats());
      return {
        jobs: all.reduce((sum, s) => sum + s.jobs, 0),
        restarts: all.reduce((sum, s) => sum + s.restarts, 0),
        wasmMemoryBytes: lastWasmMemoryBytes,
      };
    },

    async close() {
      if (closing.signal.aborted) return;
      closing.abort(new Error('script sandbox closed'));
      await Promise.all(workers.map((w) => w.close()));
    },
  };
}

/** `work`, or the signal's reason as soon as it aborts; `work` itself runs on and is then ignored. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => undefined);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * Runs a compiled bench worker (`dist/bench/<file>`) in its own thread and resolves with the one message it posts.
 * Load generators run there so that they do not share the event loop of the server they measure; on two cores the
 * server keeps one core to itself. The worker is terminated after it reports, or after `timeoutMs` at the latest.
 */
export function runInWorker<TInput, TOutput>(file: string, input: TInput, timeoutMs: number): Promise<TOutput> {
  return new Promise<TOutput>((resolve, reject) => {
    const worker = new Worker(join(__dirname, file), { workerData: input });
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate().then(outcome, outcome);
    };
    const timer = setTimeout(
      () => settle(() => reject(new Error(`${file} did not report within ${timeoutMs} ms`))),
      timeoutMs,
    );
    worker.once('message', (output: TOutput) => settle(() => resolve(output)));
    worker.once('error', (err) => settle(() => reject(err)));
    worker.once('exit', (code) => settle(() => reject(new Error(`${file} exited with code ${code} before reporting`))));
  });
}

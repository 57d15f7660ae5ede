import { runInWorker } from './run-in-worker';

/** One connection's request: connections take these in turn, so each can speak as its own device. */
export interface ConnectionRequest {
  headers: Record<string, string>;
  body?: string;
}

export interface HttpLoadSpec {
  url: string;
  method: 'GET' | 'PUT' | 'POST';
  perConnection: ConnectionRequest[];
  connections: number;
  warmupSeconds: number;
  seconds: number;
}

export interface HttpLoadRun {
  requestsPerSecond: number;
  /** Latencies of 2xx responses, in milliseconds, from autocannon's own per-response timing. */
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Count per HTTP status, to say which non-2xx came back. */
  statusCodes: Record<string, number>;
}

export interface HttpLoadReport {
  warmup: HttpLoadRun;
  measured: HttpLoadRun;
}

/** Warms up, then measures one endpoint with autocannon in a worker thread; throws unless every response was 2xx. */
export async function measureHttp(label: string, spec: HttpLoadSpec): Promise<HttpLoadRun> {
  const timeoutMs = (spec.warmupSeconds + spec.seconds + 30) * 1000;
  const report = await runInWorker<HttpLoadSpec, HttpLoadReport>('http-load-worker.js', spec, timeoutMs);
  for (const [phase, run] of [['warm-up', report.warmup], ['measurement', report.measured]] as const) {
    if (run.non2xx > 0 || run.errors > 0 || run.requests === 0) {
      throw new Error(
        `${label}: ${phase} got ${run.non2xx} non-2xx responses and ${run.errors} errors (${run.timeouts} timeouts) ` +
          `in ${run.requests} requests; statuses ${JSON.stringify(run.statusCodes)}`,
      );
    }
  }
  return report.measured;
}

import autocannon from 'autocannon';
import { parentPort, workerData } from 'node:worker_threads';
import type { HttpLoadReport, HttpLoadRun, HttpLoadSpec } from './http-load';

/**
 * Outside the main thread autocannon takes itself for one of its own workers and returns its result un-aggregated:
 * counters are right, histograms are encoded. Its histograms also count whole milliseconds (lowest discernible
 * value 1), which rounds loopback latencies to 0 or 1. So rate and percentiles come from the per-response events,
 * whose timings are fractional milliseconds.
 */
function percentile(sorted: Float64Array, q: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function fire(spec: HttpLoadSpec, seconds: number): Promise<HttpLoadRun> {
  let nextConnection = 0;
  let responses = 0;
  const latencies: number[] = [];
  // The callback form, because only it returns the instance that emits 'response'.
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url,
        method: spec.method,
        connections: spec.connections,
        duration: seconds,
        setupClient(client) {
          const request = spec.perConnection[nextConnection++ % spec.perConnection.length];
          client.setHeadersAndBody(request.headers, request.body);
        },
      },
      (err: unknown, done) => (err ? reject(err) : resolve(done)),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      responses++;
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
  });
  const sorted = Float64Array.from(latencies).sort();
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stat.count ?? 0;
  return {
    requestsPerSecond: responses / result.duration,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    requests: responses,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
  };
}

async function main(spec: HttpLoadSpec): Promise<HttpLoadReport> {
  const warmup = await fire(spec, spec.warmupSeconds);
  const measured = await fire(spec, spec.seconds);
  return { warmup, measured };
}

// A rejection is left unhandled on purpose: it ends the worker with an 'error' event, which runInWorker rejects with.
void main(workerData as HttpLoadSpec).then((report) => parentPort?.postMessage(report));

import autocannon from 'autocannon';
import { parentPort, workerData } from 'node:worker_threads';
import type { HttpLoadReport, HttpLoadRun, HttpLoadSpec } from './http-load';

/**
 * autocannon's own histogram counts whole milliseconds (lowest discernible value 1), which rounds loopback
 * latencies to 0 or 1; so percentiles come from the per-response timings it emits, which are fractional.
 */
function percentile(sorted: Float64Array, q: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function fire(spec: HttpLoadSpec, seconds: number): Promise<HttpLoadRun> {
  let nextConnection = 0;
  const latencies: number[] = [];
  const instance = autocannon({
    url: spec.url,
    method: spec.method,
    connections: spec.connections,
    duration: seconds,
    setupClient(client) {
      const request = spec.perConnection[nextConnection++ % spec.perConnection.length];
      client.setHeadersAndBody(request.headers, request.body);
    },
  });
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
  });
  const result = await instance;
  const sorted = Float64Array.from(latencies).sort();
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stat.count ?? 0;
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    requests: result.requests.total,
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

main(workerData as HttpLoadSpec).then(
  (report) => parentPort?.postMessage(report),
  (err: unknown) => {
    throw err;
  },
);

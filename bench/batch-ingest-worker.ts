import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import type { BatchIngestRun, BatchIngestSpec } from './batch-ingest';

/** Epoch ms with sub-ms precision that the main thread can compare: each thread has its own performance origin. */
const epochNow = () => performance.timeOrigin + performance.now();

/** A request budget: one connection's requests are bounded in count and time, whatever the server does. */
const REQUEST_TIMEOUT_MS = 10_000;

interface Response {
  status: number;
  text: string;
}

function send(agent: Agent, url: URL, spec: BatchIngestSpec, auth: string, body: string): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: spec.method,
        agent,
        headers: {
          authorization: auth,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`no response within ${REQUEST_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The body of a connection's `n`-th request: items 1 ms apart, continuing where the previous request stopped, so no
 * two points of a device share a timestamp (the store would keep only the last of them).
 */
function batchBody(spec: BatchIngestSpec, n: number): string {
  const batch = [];
  for (let i = 0; i < spec.itemsPerBatch; i++) {
    const seq = n * spec.itemsPerBatch + i;
    const data: Record<string, number> = {};
    spec.fields.forEach((field, f) => {
      data[field] = Math.round((20 + f * 10 + Math.sin(seq / 500) * 5) * 100) / 100;
    });
    batch.push({ ts: spec.firstTs + seq, data });
  }
  return JSON.stringify({ batch });
}

function percentile(sorted: Float64Array, q: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** One connection per device, each sending its next batch as soon as the previous one is answered. */
async function main(spec: BatchIngestSpec): Promise<BatchIngestRun> {
  const url = new URL(spec.url);
  const agent = new Agent({ keepAlive: true, maxSockets: spec.auths.length });
  const latencies: number[] = [];
  const statusCodes: Record<string, number> = {};
  let requests = 0;
  let points = 0;
  let errors = 0;
  let firstFailure: string | undefined;
  const startedAt = epochNow();
  const deadline = performance.now() + spec.seconds * 1000;
  let lastResponseAt = startedAt;

  const connection = async (auth: string) => {
    for (let n = 0; n < spec.maxRequestsPerConnection && performance.now() < deadline; n++) {
      const body = batchBody(spec, n);
      const sent = performance.now();
      try {
        const res = await send(agent, url, spec, auth, body);
        lastResponseAt = epochNow();
        requests++;
        statusCodes[res.status] = (statusCodes[res.status] ?? 0) + 1;
        if (res.status >= 200 && res.status < 300) {
          latencies.push(performance.now() - sent);
          points += spec.itemsPerBatch * spec.fields.length;
        } else {
          firstFailure ??= `${res.status} ${res.text.slice(0, 300)}`;
        }
      } catch (err) {
        errors++;
        firstFailure ??= String(err);
        // A broken connection is a fault to report, not one to hammer on.
        return;
      }
    }
  };

  try {
    await Promise.all(spec.auths.map(connection));
  } finally {
    agent.destroy();
  }
  const sorted = Float64Array.from(latencies).sort();
  const seconds = (lastResponseAt - startedAt) / 1000;
  return {
    startedAt,
    lastResponseAt,
    requests,
    points,
    requestsPerSecond: requests / seconds,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    non2xx: requests - latencies.length,
    errors,
    timeouts: 0,
    statusCodes,
    firstFailure,
  };
}

// A rejection is left unhandled on purpose: it ends the worker with an 'error' event, which runInWorker rejects with.
void main(workerData as BatchIngestSpec).then((report) => parentPort?.postMessage(report));

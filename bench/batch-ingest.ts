import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BenchDevice } from './bench-service';
import type { HttpLoadRun } from './http-load';
import { runInWorker } from './run-in-worker';
import { createDevice, postJson, startServiceInDir } from './service-in-dir';

export interface BatchIngestSpec {
  /** `{base}/v2/device/shadow/batch` */
  url: string;
  method: 'PUT' | 'POST';
  /** One connection per entry, each writing as its own device. */
  auths: string[];
  itemsPerBatch: number;
  /** Numeric fields of every item: one point each. */
  fields: string[];
  /** Timestamp of every device's first item; later items follow 1 ms apart. */
  firstTs: number;
  seconds: number;
  maxRequestsPerConnection: number;
}

export interface BatchIngestRun extends HttpLoadRun {
  /** Epoch ms (fractional) of the first request sent and the last response received. */
  startedAt: number;
  lastResponseAt: number;
  /** Points of the 2xx responses. */
  points: number;
  firstFailure?: string;
}

export interface BatchIngestResult {
  /** The requests as acknowledged; points are durable in the outbox then, not yet queryable. */
  acked: BatchIngestRun;
  /** Points of the measured phase / (first request -> a query's answer counting every point written). */
  storedPointsPerSecond: number;
  /** From the last acknowledged request to that answer: the outbox backlog plus the counting query. */
  drainMs: number;
}

export interface BatchIngestOptions {
  /** One device per connection. */
  connections: number;
  itemsPerBatch: number;
  fields: string[];
  warmupSeconds: number;
  seconds: number;
  maxRequestsPerConnection: number;
}

const DAY_MS = 86_400_000;
const epochNow = () => performance.timeOrigin + performance.now();

/**
 * Shadow batches through the service (PUT /v2/device/shadow/batch), one connection per device, from a worker thread,
 * into a service of its own (fresh data dir, rate limit off, removed at the end).
 * A point counts as ingested when the data-store API sees it: after the last response the bench asks for the count
 * of every device's points (the API drains the outbox first), and the clock stops at that answer. Warm-up points are
 * drained and counted the same way before the measured phase starts, so none of them is charged to it.
 */
export async function measureBatchIngest(label: string, options: BatchIngestOptions): Promise<BatchIngestResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'openpie-bench-ingest-'));
  try {
    const service = await startServiceInDir(dataDir, `bench-admin-${randomBytes(12).toString('hex')}`);
    try {
      const group = `bench-${randomBytes(4).toString('hex')}`;
      const devices: BenchDevice[] = [];
      for (let i = 0; i < options.connections; i++) devices.push(await createDevice(service, group, group, `ingest-${i}`));
      return await ingestPhases(label, service.baseUrl, devices, options);
    } finally {
      await service.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function ingestPhases(label: string, baseUrl: string, devices: BenchDevice[], options: BatchIngestOptions): Promise<BatchIngestResult> {
  // Back-dated, older than now by far more than a run lasts; the measured phase writes newer items than the warm-up.
  const warmupFirstTs = Date.now() - 2 * DAY_MS;
  const spec = (firstTs: number, seconds: number): BatchIngestSpec => ({
    url: `${baseUrl}/v2/device/shadow/batch`,
    method: 'PUT',
    auths: devices.map((d) => d.auth),
    itemsPerBatch: options.itemsPerBatch,
    fields: options.fields,
    firstTs,
    seconds,
    maxRequestsPerConnection: options.maxRequestsPerConnection,
  });
  const count = () => countStoredPoints(baseUrl, devices, warmupFirstTs);

  const warmup = await runPhase(label, 'warm-up', spec(warmupFirstTs, options.warmupSeconds));
  const afterWarmup = await count();
  if (afterWarmup !== warmup.points) throw new Error(`${label}: ${afterWarmup} points stored after warm-up, ${warmup.points} written`);

  const acked = await runPhase(label, 'measurement', spec(warmupFirstTs + DAY_MS, options.seconds));
  const stored = await count();
  const answeredAt = epochNow();
  if (stored !== warmup.points + acked.points) {
    throw new Error(`${label}: ${stored} points stored, ${warmup.points + acked.points} written`);
  }
  return {
    acked,
    storedPointsPerSecond: acked.points / ((answeredAt - acked.startedAt) / 1000),
    drainMs: answeredAt - acked.lastResponseAt,
  };
}

async function runPhase(label: string, phase: string, spec: BatchIngestSpec): Promise<BatchIngestRun> {
  const run = await runInWorker<BatchIngestSpec, BatchIngestRun>('batch-ingest-worker.js', spec, (spec.seconds + 30) * 1000);
  if (run.non2xx > 0 || run.errors > 0 || run.requests === 0) {
    throw new Error(
      `${label}: ${phase} got ${run.non2xx} non-2xx responses and ${run.errors} errors in ${run.requests} requests; ` +
        `statuses ${JSON.stringify(run.statusCodes)}; first: ${run.firstFailure ?? 'none'}`,
    );
  }
  return run;
}

/** sample_size of one data-store query over every device (one device token reads its whole group). */
async function countStoredPoints(baseUrl: string, devices: BenchDevice[], since: number): Promise<number> {
  const { status, text } = await postJson(`${baseUrl}/v2/feed/api/v1/datapoints/query`, devices[0].auth, {
    start_absolute: since - 1,
    metrics: devices.map((d) => ({ name: d.deviceid, aggregators: [{ name: 'count', sampling: { value: 1, unit: 'years' } }] })),
  });
  if (status !== 200) throw new Error(`counting query: ${status} ${text.slice(0, 300)}`);
  const { queries } = JSON.parse(text) as { queries: { sample_size: number }[] };
  return queries.reduce((sum, q) => sum + q.sample_size, 0);
}

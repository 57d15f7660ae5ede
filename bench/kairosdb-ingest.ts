import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createKairosDbTimeSeries } from '../src/adapters/kairosdb/kairosdb-timeseries';
import { loadConfig } from '../src/config/config';
import { createLogger } from '../src/core/logger';
import { startServer } from '../src/server';
import { Point } from '../src/timeseries/point';
import type { BatchIngestRun, BatchIngestSpec } from './batch-ingest';
import type { BenchDevice } from './bench-service';
import { runInWorker } from './run-in-worker';
import { createDevice } from './service-in-dir';

/**
 * Issue 4: shadow batches through the service into the real KairosDB (TIMESERIES=kairosdb), beside the same points
 * written straight into KairosDB, in the same run; their ratio is the facade's overhead.
 *
 * Wiring into bench/run.ts (one section, after "shadow batch ingest"):
 *
 *   await section('kairosdb ingest', async () => {
 *     const kairosDbUrl = process.env.KAIROSDB_URL;
 *     if (kairosDbUrl === undefined) return void notes.push('kairosdb ingest: skipped, KAIROSDB_URL is not set');
 *     print('measuring shadow batch ingest into KairosDB, and direct writes to KairosDB ...');
 *     rows.push(...kairosDbIngestRows(await measureKairosDbIngest({
 *       kairosDbUrl, connections: HTTP_LOAD.connections, itemsPerBatch: BATCH_INGEST.itemsPerBatch, fields: FIELDS,
 *       warmupSeconds: HTTP_LOAD.warmupSeconds, seconds: HTTP_LOAD.seconds,
 *       maxRequestsPerConnection: BATCH_INGEST.maxRequestsPerConnection,
 *     })));
 *   });
 */

export interface KairosDbIngestOptions {
  kairosDbUrl: string;
  /** Connections through the service (one device each), and writers of the direct run. */
  connections: number;
  itemsPerBatch: number;
  /** Numeric fields of every item: one point each. */
  fields: string[];
  warmupSeconds: number;
  seconds: number;
  maxRequestsPerConnection: number;
}

export interface IngestFigures {
  points: number;
  /** Points / (first request -> last acknowledgement): KairosDB has them in its queue, or our outbox does. */
  ackedPointsPerSecond: number;
  /** Points / (first request -> KairosDB counts them all): readable by a query. */
  storedPointsPerSecond: number;
  /** From the last acknowledgement until KairosDB counted every point. */
  drainMs: number;
}

export interface KairosDbIngestResult {
  service: IngestFigures & { run: BatchIngestRun };
  direct: IngestFigures;
}

const DAY_MS = 86_400_000;
const epochNow = () => performance.timeOrigin + performance.now();

export async function measureKairosDbIngest(options: KairosDbIngestOptions): Promise<KairosDbIngestResult> {
  const service = await throughService(options);
  const direct = await directWrites(options, service.points);
  return { service, direct };
}

/** Rows for bench/run.ts: both runs, each as a ratio to the direct writes' queryable rate. */
export function kairosDbIngestRows({ service, direct }: KairosDbIngestResult): string[] {
  const pointsPerRequest = service.points / service.run.requests;
  return [
    ingestRow('kairosdb batch     points queryable', service.storedPointsPerSecond, direct.storedPointsPerSecond,
      `${service.points} points through PUT /v2/device/shadow/batch; queryable in KairosDB ${service.drainMs.toFixed(0)} ms after the last response`),
    ingestRow('kairosdb batch     points acked', service.ackedPointsPerSecond, direct.storedPointsPerSecond,
      'durable in the outbox, not yet in KairosDB'),
    ingestRow(`kairosdb direct    ${pointsPerRequest} pts / POST`, direct.storedPointsPerSecond, direct.storedPointsPerSecond,
      `${direct.points} points, gzip POST /api/v1/datapoints, no service; queryable ${direct.drainMs.toFixed(0)} ms after the last 204 ` +
        `(acked at ${Math.round(direct.ackedPointsPerSecond)} pt/s)`),
  ];
}

/** `label   41234 pt/s   0.62x direct   (detail)`, as report.ts's ingest rows. */
function ingestRow(label: string, pointsPerSecond: number, directPointsPerSecond: number, detail: string): string {
  return [
    label.padEnd(34),
    `${Math.round(pointsPerSecond).toString().padStart(7)} pt/s   ${(pointsPerSecond / directPointsPerSecond).toFixed(2).padStart(6)}x direct`,
    `(${detail})`,
  ].join('   ');
}

async function throughService(options: KairosDbIngestOptions): Promise<KairosDbIngestResult['service']> {
  const dataDir = mkdtempSync(join(tmpdir(), 'openpie-bench-kairosdb-'));
  const adminToken = `bench-admin-${randomBytes(12).toString('hex')}`;
  const config = loadConfig({
    HOST: '127.0.0.1', PORT: '0', MQTT_HOST: '127.0.0.1', MQTT_PORT: '0', COAP_HOST: '127.0.0.1', COAP_PORT: '0',
    DATA_DIR: dataDir, LOG_LEVEL: 'silent', ADMIN_TOKEN: adminToken, RATE_LIMIT_RPS: '0',
    TIMESERIES: 'kairosdb', KAIROSDB_URL: options.kairosDbUrl,
  });
  const server = await startServer(config, createLogger(config.logLevel));
  const baseUrl = `http://127.0.0.1:${server.httpPort}`;
  const devices: BenchDevice[] = [];
  try {
    const group = `bench-${randomBytes(4).toString('hex')}`;
    for (let i = 0; i < options.connections; i++) {
      devices.push(await createDevice({ baseUrl, adminToken, close: server.close }, group, group, `kairosdb-${i}`));
    }
    const metrics = devices.map((d) => d.deviceid);
    const spec = (firstTs: number, seconds: number): BatchIngestSpec => ({
      url: `${baseUrl}/v2/device/shadow/batch`, method: 'PUT', auths: devices.map((d) => d.auth),
      itemsPerBatch: options.itemsPerBatch, fields: options.fields, firstTs, seconds,
      maxRequestsPerConnection: options.maxRequestsPerConnection,
    });
    const warmupFirstTs = Date.now() - 2 * DAY_MS;
    const warmup = await runPhase(spec(warmupFirstTs, options.warmupSeconds));
    await waitForCount(options.kairosDbUrl, metrics, warmup.points);
    const run = await runPhase(spec(warmupFirstTs + DAY_MS, options.seconds));
    const storedAt = await waitForCount(options.kairosDbUrl, metrics, warmup.points + run.points);
    await deleteMetrics(options.kairosDbUrl, metrics);
    return { run, ...figures(run.points, run.startedAt, run.lastResponseAt, storedAt) };
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The same shape of points (one device's batch per call, `connections` writers at once) written with the adapter's
 * PointWriter straight into KairosDB: gzip JSON, no HTTP service, shadow or outbox. Stops at `points` points or
 * after `seconds`, whichever comes first.
 */
async function directWrites(options: KairosDbIngestOptions, points: number): Promise<IngestFigures> {
  const backend = createKairosDbTimeSeries({ url: options.kairosDbUrl, timeoutMs: 30_000, logger: createLogger('silent') });
  const metrics = Array.from({ length: options.connections }, (_, w) => `openpie.bench.direct.${randomBytes(4).toString('hex')}.${w}`);
  try {
    const firstTs = Date.now() - DAY_MS;
    const startedAt = epochNow();
    const deadline = performance.now() + options.seconds * 1000;
    let written = 0;
    let lastAckAt = startedAt;
    const writer = async (w: number) => {
      for (let n = 0; written < points && performance.now() < deadline; n++) {
        const batch: Point[] = [];
        for (let i = 0; i < options.itemsPerBatch; i++) {
          const seq = n * options.itemsPerBatch + i;
          options.fields.forEach((field, f) => {
            batch.push({ metric: metrics[w], tags: { attr: field }, timestamp: firstTs + seq, value: Math.round((20 + f * 10 + Math.sin(seq / 500) * 5) * 100) / 100 });
          });
        }
        await backend.writer.writePoints(batch);
        written += batch.length;
        lastAckAt = epochNow();
      }
    };
    await Promise.all(metrics.map((_, w) => writer(w)));
    const storedAt = await waitForCount(options.kairosDbUrl, metrics, written);
    await deleteMetrics(options.kairosDbUrl, metrics);
    return figures(written, startedAt, lastAckAt, storedAt);
  } finally {
    backend.close();
  }
}

const figures = (points: number, startedAt: number, lastAckAt: number, storedAt: number): IngestFigures => ({
  points,
  ackedPointsPerSecond: points / ((lastAckAt - startedAt) / 1000),
  storedPointsPerSecond: points / ((storedAt - startedAt) / 1000),
  drainMs: storedAt - lastAckAt,
});

async function runPhase(spec: BatchIngestSpec): Promise<BatchIngestRun> {
  const run = await runInWorker<BatchIngestSpec, BatchIngestRun>('batch-ingest-worker.js', spec, (spec.seconds + 30) * 1000);
  if (run.non2xx > 0 || run.errors > 0 || run.requests === 0) {
    throw new Error(`kairosdb ingest: ${run.non2xx} non-2xx and ${run.errors} errors in ${run.requests} requests; first: ${run.firstFailure ?? 'none'}`);
  }
  return run;
}

/** Polls KairosDB until the metrics hold `expected` points in all; resolves with the epoch ms it saw them. */
async function waitForCount(kairosDbUrl: string, metrics: string[], expected: number, timeoutMs = 120_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${kairosDbUrl}/api/v1/datapoints/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        start_absolute: 0,
        metrics: metrics.map((name) => ({ name, aggregators: [{ name: 'count', sampling: { value: 100, unit: 'years' } }] })),
      }),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`kairosdb count: ${res.status} ${text.slice(0, 300)}`);
    const stored = (JSON.parse(text) as { queries: { sample_size: number }[] }).queries.reduce((n, q) => n + q.sample_size, 0);
    if (stored >= expected) return epochNow();
    if (Date.now() > deadline) throw new Error(`kairosdb count: ${stored} of ${expected} points after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function deleteMetrics(kairosDbUrl: string, metrics: string[]): Promise<void> {
  for (const metric of metrics) await fetch(`${kairosDbUrl}/api/v1/metric/${encodeURIComponent(metric)}`, { method: 'DELETE' });
}

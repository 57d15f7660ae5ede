import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createSqliteTimeSeriesStore, SqliteTimeSeriesStore } from '../src/adapters/sqlite-timeseries/sqlite-timeseries-store';
import { Point } from '../src/timeseries/point';
import { executeQuery, QueryResponse, QueryRun, ScriptSandbox, validateQuery } from '../src/timeseries/query';
import { FIELDS, QUERY_SHAPES, QueryShape } from './feed-query-shapes';
import { QueryTiming } from './report';
import { BENCH_QUERY_BUDGETS, createDevice, postJson, startServiceInDir, userTokenAuth } from './service-in-dir';

/** Stored points per step: the device holds the first total, then the second. */
export const QUERY_SIZES = [1_000_000, 10_000_000];
/** Points per direct writePoints call while preloading (a multiple of the field count). */
const LOAD_BATCH = 60_000;
/** Per shape: one warm-up per path, then up to `runs` timed runs of each, fewer once `budgetMs` is spent (never below 3). */
const RUNS = { runs: 5, minRuns: 3, budgetMs: 8_000 };
const SECOND_MS = 1_000;
const HOUR_MS = 3_600_000;

export interface FeedQueryFigures {
  stored: number;
  shape: QueryShape;
  http: QueryTiming;
  engine: QueryTiming;
}

type Print = (line: string) => void;

/** No benchmark query runs a script: a call here is a bug of the benchmark. */
export const noScripts: ScriptSandbox = {
  mapPoints: () => Promise.reject(new Error('no scripts in this benchmark')),
  filterPoints: () => Promise.reject(new Error('no scripts in this benchmark')),
  reduceRanges: () => Promise.reject(new Error('no scripts in this benchmark')),
};

/**
 * Query speed of the data-store API (issue 3 "Done when") over one device holding 1M, then 10M points: three fields,
 * one point per field per second, back-dated so that they end an hour ago. Points are loaded straight into the
 * time-series store of the service's data dir while the service is stopped (startServer does not expose its
 * writer), then the service is started on that dir and queried over HTTP with a user token. The same queries run
 * through executeQuery over the loading handle, without HTTP, for the HTTP/JSON share. The data dir is removed at
 * the end.
 */
export async function benchFeedQueries(print: Print): Promise<FeedQueryFigures[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'openpie-bench-query-'));
  const adminToken = `bench-admin-${randomBytes(12).toString('hex')}`;
  try {
    const caller = await provisionDevice(dataDir, adminToken);
    const ticks = Math.ceil(QUERY_SIZES[QUERY_SIZES.length - 1] / FIELDS.length);
    const start = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - HOUR_MS - ticks * SECOND_MS;
    const end = start + ticks * SECOND_MS;
    const body = (shape: QueryShape) => ({ start_absolute: start, end_absolute: end, metrics: [shape.metric(caller.deviceid)] });

    const figures: FeedQueryFigures[] = [];
    let stored = 0;
    for (const total of QUERY_SIZES) {
      const store = createSqliteTimeSeriesStore(dataDir);
      try {
        print(`loading ${total - stored} points into the device's ${FIELDS.length} series (${total} in all) ...`);
        const seconds = await loadPoints(store, caller.deviceid, start, stored, total);
        print(`  loaded at ${Math.round((total - stored) / seconds)} points/s, Point objects included`);
        stored = total;
        // The service opens the file after the load has committed; from here on nothing writes, so this handle and
        // the service's read the same data, and their runs can alternate under the same machine conditions.
        const service = await startServiceInDir(dataDir, adminToken);
        try {
          const url = `${service.baseUrl}/v2/feed/api/v1/datapoints/query`;
          for (const shape of QUERY_SHAPES) {
            print(`measuring query over ${total} points, HTTP and engine-only in turn: ${shape.label} ...`);
            const { http, engine } = await timeRuns(shape, total, {
              http: () => runHttp(url, caller.auth, body(shape)),
              engine: () => runEngine(store, body(shape)),
            });
            figures.push({ stored: total, shape, http, engine });
          }
        } finally {
          await service.close();
        }
      } finally {
        store.close();
      }
    }
    return figures;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** One device in a fresh project, and a user token of that project, made through the admin API. */
async function provisionDevice(dataDir: string, adminToken: string): Promise<{ deviceid: string; auth: string }> {
  const service = await startServiceInDir(dataDir, adminToken);
  try {
    const projectid = `bench-q-${randomBytes(4).toString('hex')}`;
    const { deviceid } = await createDevice(service, projectid, 'bench-g', 'query-device');
    return { deviceid, auth: await userTokenAuth(service, projectid) };
  } finally {
    await service.close();
  }
}

/** Points `from` to `to` of the device, round-robin over the fields; returns the wall seconds. */
async function loadPoints(store: SqliteTimeSeriesStore, metric: string, start: number, from: number, to: number) {
  const started = performance.now();
  for (let first = from; first < to; first += LOAD_BATCH) {
    const points: Point[] = [];
    for (let k = first; k < Math.min(first + LOAD_BATCH, to); k++) {
      const tick = Math.floor(k / FIELDS.length);
      const field = k % FIELDS.length;
      points.push({ metric, tags: { attr: FIELDS[field] }, timestamp: start + tick * SECOND_MS, value: 20 + field * 10 + Math.sin(tick / 600) * 5 });
    }
    await store.writer.writePoints(points);
  }
  return (performance.now() - started) / 1000;
}

interface Answer {
  response: QueryResponse;
  /** Of the response as JSON: the bytes the HTTP path sends, or would send. */
  bytes: number;
  /** Engine path only: the JSON.stringify that the HTTP path does inside its time. */
  stringifyMs?: number;
}

async function runHttp(url: string, auth: string, body: unknown): Promise<{ ms: number; answer: Answer }> {
  const started = performance.now();
  const { status, text } = await postJson(url, auth, body);
  // The clock stops once the body has arrived: parsing it is the client's work, not the service's. It includes a
  // loopback connect (postJson never reuses a socket), a fraction of a millisecond.
  const ms = performance.now() - started;
  if (status !== 200) throw new Error(`query answered ${status}: ${text.slice(0, 300)}`);
  return { ms, answer: { response: JSON.parse(text) as QueryResponse, bytes: Buffer.byteLength(text) } };
}

async function runEngine(store: SqliteTimeSeriesStore, body: unknown): Promise<{ ms: number; answer: Answer }> {
  const started = performance.now();
  const run = new QueryRun(BENCH_QUERY_BUDGETS);
  let response: QueryResponse;
  try {
    response = await executeQuery(validateQuery(body, Date.now()), { source: store.source, sandbox: noScripts, writer: store.writer }, run);
  } finally {
    run.finish();
  }
  const ms = performance.now() - started;
  const json = JSON.stringify(response);
  const stringifyMs = performance.now() - started - ms;
  return { ms, answer: { response, bytes: Buffer.byteLength(json), stringifyMs } };
}

type Run = () => Promise<{ ms: number; answer: Answer }>;

/**
 * One warm-up of each path, then timed runs taking turns (HTTP, engine, HTTP, ...), so that both meet the same
 * machine; the median of each, with every answer checked against the shape.
 */
async function timeRuns(shape: QueryShape, stored: number, runs: { http: Run; engine: Run }) {
  const paths = ['http', 'engine'] as const;
  const times = { http: [] as number[], engine: [] as number[] };
  const stringify: number[] = [];
  const last: Partial<Record<(typeof paths)[number], Answer>> = {};
  for (const path of paths) shape.check((await runs[path]()).answer.response, stored);
  const started = performance.now();
  while (times.http.length < RUNS.runs && (times.http.length < RUNS.minRuns || performance.now() - started < RUNS.budgetMs)) {
    for (const path of paths) {
      const { ms, answer } = await runs[path]();
      shape.check(answer.response, stored);
      times[path].push(ms);
      if (answer.stringifyMs !== undefined) stringify.push(answer.stringifyMs);
      last[path] = answer;
    }
  }
  const timing = (path: (typeof paths)[number]): QueryTiming => {
    const answer = last[path] as Answer;
    const q = answer.response.queries[0];
    return {
      medianMs: median(times[path]),
      runs: times[path].length,
      sampleSize: q.sample_size,
      values: q.results.reduce((sum, r) => sum + r.values.length, 0),
      bytes: answer.bytes,
      stringifyMs: path === 'engine' ? median(stringify) : undefined,
    };
  };
  return { http: timing('http'), engine: timing('engine') };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

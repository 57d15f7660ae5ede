import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import pino from 'pino';
import { createKairosDbTimeSeries, KairosDbTimeSeries } from '../../src/adapters/kairosdb/kairosdb-timeseries';
import { PointWriter, TimeSeriesQueries } from '../../src/timeseries/port';
import { ScriptSandbox } from '../../src/timeseries/query';

/**
 * The real KairosDB of infra/ (KAIROSDB_URL, from `eval "$(infra/env.sh)"`). Suites that need it call this in their
 * `before`: with the variable unset they are skipped, with a line saying why, except in CI (CI set), where a missing
 * server is a failure: CI must prove the adapter against the real KairosDB. A server that cannot group by tag fails
 * with the fix (assertTagGroupingWorks).
 */
export async function kairosDbUrlOrSkip(ctx: Mocha.Context): Promise<string> {
  const url = process.env.KAIROSDB_URL;
  if (url === undefined || url === '') {
    const why = 'KAIROSDB_URL is not set: start the real KairosDB with infra/start-all.sh, then eval "$(infra/env.sh)"';
    if (process.env.CI) throw new Error(`${why} (CI must run the KairosDB suites)`);
    process.stdout.write(`      skipped: ${why}\n`);
    ctx.skip();
  }
  await assertTagGroupingWorks(url);
  return url;
}

/**
 * Fails with the fix when the KairosDB at `url` cannot run a tag grouper: on Java 17, Apache BVal needs java.util
 * opened (infra/kairosdb.sh passes --add-opens java.base/java.util=ALL-UNNAMED; a server started before that flag
 * answers every tag group_by with 500 "error during validation of [...]").
 */
async function assertTagGroupingWorks(url: string): Promise<void> {
  const res = await kairosDbRequest(url, 'POST', '/datapoints/query', {
    start_absolute: 0, end_absolute: 1, metrics: [{ name: uniqueMetric('probe'), group_by: [{ name: 'tag', tags: ['x'] }] }],
  });
  if (res.status !== 200) {
    throw new Error(`KairosDB at ${url} cannot group by tag (${res.status} ${JSON.stringify(res.body)}): restart it with ` +
      'infra/kairosdb.sh stop && infra/kairosdb.sh start, which opens java.base/java.util for Apache BVal on Java 17');
  }
}

/** A metric name no other test (and no earlier run) uses: KairosDB keeps data between runs. */
export const uniqueMetric = (suite: string) => `openpie.test.${suite}.${randomBytes(6).toString('hex')}`;

export const silentLogger = pino({ level: 'silent' });

/** The adapter as the service builds it, over `url`; close it after the suite. */
export function kairosDbAdapter(
  url: string, deps: { sandbox: ScriptSandbox; writer?: PointWriter }, timeoutMs = 10_000,
): { backend: KairosDbTimeSeries; queries: TimeSeriesQueries } {
  const backend = createKairosDbTimeSeries({ url, timeoutMs, logger: silentLogger });
  return { backend, queries: backend.queries({ writer: deps.writer ?? backend.writer, sandbox: deps.sandbox }) };
}

/** Plain HTTP to KairosDB for arranging and cleaning up, never through the adapter under test. */
export async function kairosDbRequest(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/api/v1${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

export async function deleteMetrics(url: string, metrics: readonly string[]): Promise<void> {
  for (const metric of metrics) await kairosDbRequest(url, 'DELETE', `/metric/${encodeURIComponent(metric)}`);
}

/**
 * Polls `read` until `done` holds (KairosDB's writes become readable 0.5-1 s after the 204, infra/README.md);
 * returns the last value read, or fails after `timeoutMs`.
 */
export async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`not there after ${timeoutMs} ms; last read: ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** How many raw points KairosDB holds for each metric, over all time. */
export async function storedCounts(url: string, metrics: readonly string[]): Promise<number[]> {
  const res = await kairosDbRequest(url, 'POST', '/datapoints/query', {
    start_absolute: -8.64e15,
    end_absolute: 8.64e15,
    metrics: metrics.map((name) => ({ name, aggregators: [{ name: 'count', sampling: { value: 1000, unit: 'years' } }] })),
  });
  if (res.status !== 200) throw new Error(`count query: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.queries.map((q: { sample_size: number }) => q.sample_size);
}

/** Waits until KairosDB holds `expected[i]` points of `metrics[i]`. */
export async function waitForStored(url: string, metrics: readonly string[], expected: readonly number[], timeoutMs = 30_000) {
  await pollUntil(() => storedCounts(url, metrics), (counts) => counts.every((c, i) => c === expected[i]), timeoutMs);
}

/** A loopback port nothing listens on (bound, then closed): connections to it are refused. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

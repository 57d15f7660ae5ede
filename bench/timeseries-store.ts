import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  createSqliteTimeSeriesStore,
  DEFAULT_TIMESERIES_LAYOUT,
  SqliteTimeSeriesStore,
  TimeSeriesLayout,
} from '../src/adapters/sqlite-timeseries/sqlite-timeseries-store';
import { TIMESERIES_FILE } from '../src/adapters/sqlite-timeseries/sqlite-timeseries-schema';
import { Point } from '../src/timeseries/point';

/** Sizes of one run: about 10 s on a 2-CPU machine, most of it loading 11M points. */
const INGEST = {
  writesOfOnePoint: 2_000,
  pointsInBatchesOf100: 300_000,
  pointsInBatchesOf1000: 1_000_000,
  /** Like devices posting batches at the same time: their writes share commits (group commit). */
  concurrentWriters: 10,
};
const SCAN = { totals: [1_000_000, 10_000_000], loadBatch: 10_000, repeats: 3 };
const RANGE_READS = { reads: 2_000, rangeMs: 10 * 60_000 };
/** The service's shape: metric = a device id, one tag `attr` per field, one point per field per second. */
const ATTRS = ['env.temp', 'env.humid', 'power'];
const START_MS = Date.UTC(2024, 0, 1);
const INTERVAL_MS = 1_000;

const LABEL_WIDTH = 34;

export interface TimeSeriesBenchOptions {
  layout?: TimeSeriesLayout;
  print?: (line: string) => void;
}

type Print = (line: string) => void;

/**
 * The embedded time-series engine on its own, without HTTP (issue 3, section 2): ingest in writes of 1, 100 and
 * 1000 points, each write a durable transaction (one fsync), and 10 writers at once; whole-metric scans of 1M and
 * 10M stored points returned as typed arrays; small raw range reads; bytes on disk per point. Returns one printed
 * row per figure, like the other rows of bench/run.ts. Its temp dir is removed, whatever happens.
 */
export async function benchTimeSeriesStore(options: TimeSeriesBenchOptions = {}): Promise<string[]> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const dir = mkdtempSync(join(tmpdir(), 'openpie-bench-timeseries-'));
  try {
    const store = createSqliteTimeSeriesStore(dir, options.layout ?? DEFAULT_TIMESERIES_LAYOUT);
    try {
      const rows = [...(await ingestRows(store, print)), ...(await readRows(store, print))];
      rows.push(diskRow(dir));
      rows.forEach((line) => print(line));
      return rows;
    } finally {
      store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function ingestRows(store: SqliteTimeSeriesStore, print: Print): Promise<string[]> {
  const rows: string[] = [];
  for (const [batch, points] of [
    [1, INGEST.writesOfOnePoint],
    [100, INGEST.pointsInBatchesOf100],
    [1000, INGEST.pointsInBatchesOf1000],
  ] as const) {
    print(`measuring time-series ingest, ${points} points in batches of ${batch} ...`);
    const seconds = await ingest(store, `ingest-${batch}`, points, batch);
    rows.push(row(`timeseries ingest  batch ${batch}`, rate(points / seconds, 'pt/s'), `${points} points`));
  }

  const writers = INGEST.concurrentWriters;
  const points = INGEST.pointsInBatchesOf100;
  print(`measuring time-series ingest, ${writers} writers at once, batches of 100 ...`);
  const started = performance.now();
  const metrics = Array.from({ length: writers }, (_, w) => `ingest-concurrent-${w}`);
  await Promise.all(metrics.map((metric) => ingest(store, metric, points / writers, 100)));
  const wall = (performance.now() - started) / 1000;
  const label = `timeseries ingest  ${writers} x batch 100`;
  rows.push(row(label, rate(points / wall, 'pt/s'), `${points} points, ${writers} writers, wall time`));
  return rows;
}

async function readRows(store: SqliteTimeSeriesStore, print: Print): Promise<string[]> {
  const rows: string[] = [];
  for (const total of SCAN.totals) {
    const metric = `scan-${total / 1_000_000}m`;
    print(`loading ${total} points into ${ATTRS.length} series in batches of ${SCAN.loadBatch} ...`);
    const loadSeconds = await ingest(store, metric, total, SCAN.loadBatch);
    print(`  loaded at ${Math.round(total / loadSeconds)} points/s`);
    print(`measuring a whole-metric scan of ${total} points ...`);
    const end = START_MS + (total / ATTRS.length) * INTERVAL_MS;
    const scan = await measureScan(store, metric, START_MS, end, total);
    const detail = `median of ${SCAN.repeats}: ${(scan * 1000).toFixed(1)} ms`;
    rows.push(row(`timeseries scan    ${total / 1_000_000}M points`, rate(total / scan, 'pt/s'), detail));
  }

  const minutes = RANGE_READS.rangeMs / 60_000;
  print(`measuring ${RANGE_READS.reads} raw reads of ${minutes} minutes ...`);
  const range = await measureRangeReads(store, 'scan-10m', 10_000_000 / ATTRS.length);
  const detail = `${Math.round(range.points / range.seconds)} pt/s, ${range.points / range.reads} points a read`;
  rows.push(row(`timeseries range  ${minutes} min of 1 series`, rate(range.reads / range.seconds, 'rd/s'), detail));
  return rows;
}

/** Bytes per point of the database file; the WAL is reused, not grown, so it is shown apart. */
function diskRow(dir: string): string {
  const { writesOfOnePoint, pointsInBatchesOf100, pointsInBatchesOf1000 } = INGEST;
  const ingested = writesOfOnePoint + 2 * pointsInBatchesOf100 + pointsInBatchesOf1000;
  const points = ingested + SCAN.totals.reduce((sum, n) => sum + n, 0);
  const bytes = statSync(join(dir, TIMESERIES_FILE)).size;
  const wal = statSync(join(dir, `${TIMESERIES_FILE}-wal`)).size;
  const mib = (n: number) => `${Math.round(n / 2 ** 20)} MiB`;
  const perPoint = `${(bytes / points).toFixed(1).padStart(9)} B/pt`;
  return row('timeseries disk    database file', perPoint, `${mib(bytes)} for ${points} points, WAL ${mib(wal)} more`);
}

/** Writes `total` points round-robin over the attrs; returns the seconds spent in writePoints only. */
async function ingest(store: SqliteTimeSeriesStore, metric: string, total: number, batch: number): Promise<number> {
  let seconds = 0;
  for (let first = 0; first < total; first += batch) {
    const points: Point[] = [];
    for (let k = first; k < Math.min(first + batch, total); k++) {
      const tick = Math.floor(k / ATTRS.length);
      points.push({
        metric,
        tags: { attr: ATTRS[k % ATTRS.length] },
        timestamp: START_MS + tick * INTERVAL_MS,
        value: 20 + Math.sin(tick / 600) * 5,
      });
    }
    const started = performance.now();
    await store.writer.writePoints(points);
    seconds += (performance.now() - started) / 1000;
  }
  return seconds;
}

/** Median seconds of a whole-metric read, checking that every point came back. */
async function measureScan(store: SqliteTimeSeriesStore, metric: string, start: number, end: number, expected: number) {
  const times: number[] = [];
  for (let r = 0; r < SCAN.repeats; r++) {
    const started = performance.now();
    const series = await store.source.readSeries(metric, {}, start, end);
    times.push((performance.now() - started) / 1000);
    const points = series.reduce((sum, s) => sum + s.timestamps.length, 0);
    if (points !== expected) throw new Error(`scan of ${metric} returned ${points} points, expected ${expected}`);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}

/** Random ranges of one series, as a dashboard panel or a `limit` query would ask for. */
async function measureRangeReads(store: SqliteTimeSeriesStore, metric: string, pointsPerSeries: number) {
  const span = pointsPerSeries * INTERVAL_MS - RANGE_READS.rangeMs;
  let points = 0;
  const started = performance.now();
  for (let r = 0; r < RANGE_READS.reads; r++) {
    const start = START_MS + Math.floor(Math.random() * (span / INTERVAL_MS)) * INTERVAL_MS;
    const series = await store.source.readSeries(metric, { attr: [ATTRS[0]] }, start, start + RANGE_READS.rangeMs - 1);
    points += series[0]?.timestamps.length ?? 0;
  }
  return { reads: RANGE_READS.reads, points, seconds: (performance.now() - started) / 1000 };
}

const rate = (perSecond: number, unit: string) => `${Math.round(perSecond).toString().padStart(9)} ${unit}`;

const row = (label: string, figure: string, detail: string) =>
  [label.padEnd(LABEL_WIDTH), figure, `(${detail})`].join('   ');

if (require.main === module) {
  benchTimeSeriesStore().catch((err: unknown) => {
    process.stderr.write(`benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  });
}

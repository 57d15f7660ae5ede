import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { isDeepStrictEqual } from 'node:util';
import { createSqliteTimeSeriesStore } from '../src/adapters/sqlite-timeseries/sqlite-timeseries-store';
import { createEmbeddedQueries } from '../src/timeseries/embedded-queries';
import { Point } from '../src/timeseries/point';
import { materializeAnswer, QueryAnswer, QueryRun, validateQuery } from '../src/timeseries/query';
import { refreshDevice } from '../src/timeseries/rollups/refresh';
import { createRollupQueries } from '../src/timeseries/rollups/rollup-queries';
import { RollupTier } from '../src/timeseries/rollups/tiers';
import { noScripts } from './feed-query';

/** A year of one field of one device at one point a minute (525,600 points), like a sensor's history (issue 23 §7). */
const YEAR = { points: 365 * 24 * 60, intervalMs: 60_000, batch: 60_000 };
/** Timed runs of each path after warm-ups (the JIT and the garbage of loading settle first). */
const RUNS = { warmups: 3, timed: 10 };
const HOUR_MS = 3_600_000;
const LABEL_WIDTH = 34;
const TIER: RollupTier = { periodMs: HOUR_MS, retentionMs: undefined };

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * `rollup, year dashboard` row of `npm run bench`: the dashboard query of one device over a year, 1-hour averages,
 * answered from the 1h roll-up tier and from the raw points, on the embedded engine without HTTP; the two answers
 * must be equal (values are quarters, whose sums are exact). Points are written straight through the engine's writer,
 * the tier built by the roll-up job's own refresh.
 */
export async function benchRollupQuery(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'openpie-bench-rollup-'));
  const store = createSqliteTimeSeriesStore(dir);
  try {
    const deviceid = randomUUID();
    const start = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - YEAR.points * YEAR.intervalMs;
    const end = start + YEAR.points * YEAR.intervalMs - 1;
    for (let first = 0; first < YEAR.points; first += YEAR.batch) {
      const write: Point[] = [];
      for (let i = first; i < Math.min(first + YEAR.batch, YEAR.points); i++) {
        write.push({ metric: deviceid, tags: { attr: 'temp' }, timestamp: start + i * YEAR.intervalMs, value: 20 + (i % 97) / 4 });
      }
      await store.writer.writePoints(write);
    }
    const queries = createEmbeddedQueries({ source: store.source, writer: store.writer, sandbox: noScripts });
    const built = performance.now();
    await refreshDevice({ queries, writer: store.writer, eraser: store.eraser, now: Date.now }, deviceid, [TIER], [{ start, end }]);
    const buildMs = performance.now() - built;

    const declaration = { tiers: [TIER], declaredAt: Date.now(), builtAt: Date.now() };
    const rollups = createRollupQueries({
      maintainer: { declarationOfDevice: async () => ({ projectid: 'bench', declaration }), pending: () => [] },
      queries, keysScanned: true, now: Date.now,
    });
    const body = {
      start_absolute: start, end_absolute: end,
      metrics: [{ name: deviceid, tags: { attr: ['temp'] }, aggregators: [{ name: 'avg', sampling: { value: 1, unit: 'hours' }, align_sampling: true }] }],
    };
    const timed = async (answer: (run: QueryRun) => Promise<QueryAnswer | undefined>) => {
      const times: number[] = [];
      let last: QueryAnswer | undefined;
      for (let i = 0; i < RUNS.warmups + RUNS.timed; i++) {
        const run = new QueryRun();
        const began = performance.now();
        last = await answer(run);
        if (i >= RUNS.warmups) times.push(performance.now() - began);
        run.finish();
      }
      if (last === undefined) throw new Error('the 1h tier did not answer the year-long query');
      return { ms: median(times), answer: materializeAnswer(last) };
    };
    const fromTier = await timed(async (run) => (await rollups.tryAnswer(validateQuery(body, Date.now()), run))?.answer);
    const fromRaw = await timed((run) => queries.query(validateQuery(body, Date.now()), body, run));
    if (!isDeepStrictEqual(fromTier.answer, fromRaw.answer)) throw new Error('the 1h tier answered otherwise than the raw points');

    return [
      'rollup, year dashboard 1h avg'.padEnd(LABEL_WIDTH),
      `${fromTier.ms.toFixed(1).padStart(7)} ms from the 1h tier`,
      `${fromRaw.ms.toFixed(1).padStart(7)} ms raw`,
      `x${(fromRaw.ms / fromTier.ms).toFixed(1)} faster`,
      `(${YEAR.points} points, 1/min, one field; ${fromTier.answer.queries[0].results[0].values.length} buckets, equal answers; ` +
        `medians of ${RUNS.timed}; tier built in ${buildMs.toFixed(0)} ms)`,
    ].join('   ');
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  benchRollupQuery().then(
    (line) => process.stdout.write(`${line}\n`),
    (err: unknown) => {
      process.stderr.write(`benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}

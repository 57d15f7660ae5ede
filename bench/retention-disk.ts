import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteTimeSeriesStore } from '../src/adapters/sqlite-timeseries/sqlite-timeseries-store';
import { timeSeriesFileIn } from '../src/adapters/sqlite-timeseries/sqlite-timeseries-schema';
import { Point } from '../src/timeseries/point';

/**
 * A million points at 1 Hz over 3 fields of one device, the older 80% with an expiry an hour after their time (a
 * short retention), the newest 20% without: written in batches of 10,000 like the relay's, then the clock passes
 * the expiry and the retention cleanup runs (issue 23 §2).
 */
const RETENTION = { points: 1_000_000, batch: 10_000, expiringShare: 0.8, ttlMs: 3_600_000 };
const ATTRS = ['env.temp', 'env.humid', 'power'];
const START_MS = Date.UTC(2024, 0, 1);
const LABEL_WIDTH = 34;

/** The database file's bytes once the store is closed (its WAL checkpointed into it and removed). */
const fileBytes = (dir: string) => statSync(timeSeriesFileIn(dir)).size;

/**
 * `timeseries disk, retention` row of `npm run bench`: the embedded engine's file per million points written, before
 * the cleanup and after it dropped the expired blocks (and gave their pages back: incremental vacuum).
 */
export async function benchRetentionDisk(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'openpie-bench-retention-'));
  let clock = START_MS;
  const upkeep = { cleanupEveryMs: 0, now: () => clock };
  try {
    const { points, batch, expiringShare, ttlMs } = RETENTION;
    const expiring = Math.round(points * expiringShare);
    let store = createSqliteTimeSeriesStore(dir, undefined, upkeep);
    const tagsOf = ATTRS.map((attr) => ({ attr }));
    let lastTick = 0;
    for (let first = 0; first < points; first += batch) {
      const write: Point[] = [];
      for (let k = first; k < Math.min(first + batch, points); k++) {
        const tick = Math.floor(k / ATTRS.length);
        const timestamp = START_MS + tick * 1000;
        lastTick = tick;
        const point = { metric: 'bench-device', tags: tagsOf[k % ATTRS.length], timestamp, value: 20 + Math.sin(tick / 600) * 5 };
        write.push(k < expiring ? { ...point, expiresAt: timestamp + ttlMs } : point);
      }
      await store.writer.writePoints(write);
    }
    store.close();
    const before = fileBytes(dir);

    clock = START_MS + Math.floor(expiring / ATTRS.length) * 1000 + ttlMs;
    store = createSqliteTimeSeriesStore(dir, undefined, upkeep);
    const started = performance.now();
    const report = store.cleanup();
    const cleanupMs = performance.now() - started;
    store.close();
    const after = fileBytes(dir);

    const perMillion = (bytes: number, count: number) => `${((bytes / count) * 1e6 / 2 ** 20).toFixed(1)} MiB`;
    return [
      'timeseries disk, retention'.padEnd(LABEL_WIDTH),
      `${perMillion(before, points).padStart(9)}/1M pt before`,
      `${perMillion(after, points - expiring).padStart(9)}/1M pt kept after`,
      `(${points} points over ${lastTick + 1} s, ${expiring} expired: file ${Math.round(before / 2 ** 20)} -> ` +
        `${Math.round(after / 2 ** 20)} MiB; cleanup dropped ${report.blocksDropped} blocks, freed ${report.pagesFreed} pages in ${cleanupMs.toFixed(0)} ms)`,
    ].join('   ');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  benchRetentionDisk().then(
    (line) => process.stdout.write(`${line}\n`),
    (err: unknown) => {
      process.stderr.write(`benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}

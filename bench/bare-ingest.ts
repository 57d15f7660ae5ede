import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createSqliteTimeSeriesStore } from '../src/adapters/sqlite-timeseries/sqlite-timeseries-store';
import { Point } from '../src/timeseries/point';

const DAY_MS = 86_400_000;

export interface BareIngestRun {
  pointsPerSecond: number;
  points: number;
  seconds: number;
}

/**
 * The same points written straight into a fresh embedded store, no HTTP, no shadow, no outbox: `writers` loops at once
 * (one per device), each call one request's points. The wall time includes building the Point objects, as the
 * service has to. The store blocks this thread while it commits: run it while nothing else here has work.
 */
export async function measureBareIngest(
  writers: number,
  pointsPerWrite: number,
  fields: string[],
  maxPoints: number,
  maxMs: number,
): Promise<BareIngestRun> {
  const dir = mkdtempSync(join(tmpdir(), 'openpie-bench-bare-ingest-'));
  try {
    const store = createSqliteTimeSeriesStore(dir);
    try {
      const firstTs = Date.now() - DAY_MS;
      const itemsPerWrite = pointsPerWrite / fields.length;
      const started = performance.now();
      let points = 0;
      const writer = async (w: number) => {
        for (let n = 0; points < maxPoints && performance.now() - started < maxMs; n++) {
          const batch: Point[] = [];
          for (let i = 0; i < itemsPerWrite; i++) {
            const seq = n * itemsPerWrite + i;
            for (const [f, field] of fields.entries()) {
              batch.push({ metric: `bare-${w}`, tags: { attr: field }, timestamp: firstTs + seq, value: 20 + f * 10 + Math.sin(seq / 500) });
            }
          }
          await store.writer.writePoints(batch);
          points += batch.length;
        }
      };
      await Promise.all(Array.from({ length: writers }, (_, w) => writer(w)));
      const seconds = (performance.now() - started) / 1000;
      return { pointsPerSecond: points / seconds, points, seconds };
    } finally {
      store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

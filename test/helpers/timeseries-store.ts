import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createSqliteTimeSeriesStore,
  DEFAULT_TIMESERIES_LAYOUT,
  SqliteTimeSeriesStore,
  TimeSeriesLayout,
  TimeSeriesUpkeep,
} from '../../src/adapters/sqlite-timeseries/sqlite-timeseries-store';
import { Point, StoredSeries } from '../../src/timeseries/point';

/** Tiny blocks and heads, so that a handful of points crosses block boundaries and seals. */
export const TINY_LAYOUT: TimeSeriesLayout = { blockPoints: 4, headPoints: 3 };

export interface TempStore {
  readonly dataDir: string;
  /** The open store; replaced by `reopen`. */
  store: SqliteTimeSeriesStore;
  /** Closes and opens the same files again, like a service restart. */
  reopen(): void;
  dispose(): void;
}

/** A store on a real SQLite file in a fresh temp dir; `upkeep` gives it a clock and a cleanup period (retention). */
export function openTempStore(layout: TimeSeriesLayout = DEFAULT_TIMESERIES_LAYOUT, upkeep?: TimeSeriesUpkeep): TempStore {
  const dataDir = mkdtempSync(join(tmpdir(), 'openpie-timeseries-'));
  const temp: TempStore = {
    dataDir,
    store: createSqliteTimeSeriesStore(dataDir, layout, upkeep),
    reopen() {
      temp.store.close();
      temp.store = createSqliteTimeSeriesStore(dataDir, layout, upkeep);
    },
    dispose() {
      temp.store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return temp;
}

export const T0 = Date.UTC(2024, 0, 1);

/** A point of the service's shape: metric = device id, tag attr = field. */
export const aPoint = (p: Partial<Point> & { attr?: string } = {}): Point => ({
  metric: p.metric ?? 'device-1',
  tags: p.tags ?? { attr: p.attr ?? 'temp' },
  timestamp: p.timestamp ?? T0,
  value: p.value ?? 1,
});

/** `[[ts, value], ...]` of one stored series, easy to compare with deep equality. */
export const pairsOf = (s: StoredSeries): [number, number][] =>
  Array.from(s.timestamps, (ts, i) => [ts, s.values[i]] as [number, number]);

export const everything = { start: -8.64e15, end: 8.64e15 };

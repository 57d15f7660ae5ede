import { AppError } from '../errors';
import { ReadinessCheck } from '../health/port';
import { Point, StoredSeries } from '../timeseries/point';
import { PointWriter, SeriesSource } from '../timeseries/port';
import { assertValidPoints } from '../timeseries/validate-points';
import { Blocks } from './sqlite-timeseries-blocks';
import { canonicalTags, SeriesCatalog, SeriesEntry } from './sqlite-timeseries-catalog';
import { createGroupCommit } from './sqlite-timeseries-group-commit';
import { HeadFragments } from './sqlite-timeseries-head';
import { combineRuns, mergePreferringNewer, runFromPoints } from './sqlite-timeseries-runs';
import { sqliteReadinessCheck } from './sqlite-readiness';
import { openSqliteTimeSeriesDatabase } from './sqlite-timeseries-schema';

/**
 * How points are laid out; only writes depend on it, so files written with other numbers stay readable.
 * The defaults were chosen with bench/timeseries-store.ts: scans ran at about the same speed from 1024 to 8192
 * points a block, while 10-minute range reads got slower with bigger blocks (a read decodes every block it touches
 * whole) and seals rewrite more; 2048 sits in the middle.
 */
export interface TimeSeriesLayout {
  /** Points a sealed block is filled to. */
  readonly blockPoints: number;
  /**
   * Points a series' head may hold: the write that reaches it seals the head into blocks. It bounds what a read of
   * recent data merges (one row per write: up to 256 with one-point writes) and the head's share of the file.
   */
  readonly headPoints: number;
}

export const DEFAULT_TIMESERIES_LAYOUT: TimeSeriesLayout = { blockPoints: 2048, headPoints: 256 };

export interface SqliteTimeSeriesStore {
  readonly writer: PointWriter;
  readonly source: SeriesSource;
  /** For /readyz: a trivial query on timeseries.db. */
  readonly readiness: ReadinessCheck;
  /** Idempotent; later calls of the writer and the source reject with SHUTTING_DOWN. */
  close(): void;
}

interface SeriesBatch {
  metric: string;
  tags: Readonly<Record<string, string>>;
  canonical: string;
  timestamps: number[];
  values: number[];
}

/**
 * The embedded time-series engine: DATA_DIR/timeseries.db. A writePoints call is committed (fsync) when it
 * resolves; calls made in the same turn of the event loop share one transaction (group commit). Points are
 * validated before they join one (assertValidPoints), so a bad point fails its own call alone and stores nothing.
 * better-sqlite3 is synchronous: calls run one at a time, and a read of millions of points holds the event loop for
 * the time it takes (about 30 ms per million points read, measured with bench/timeseries-store.ts).
 */
export function createSqliteTimeSeriesStore(
  dataDir: string,
  layout: TimeSeriesLayout = DEFAULT_TIMESERIES_LAYOUT,
): SqliteTimeSeriesStore {
  for (const [name, value] of Object.entries(layout)) {
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`layout.${name} must be a positive integer`);
  }
  const db = openSqliteTimeSeriesDatabase(dataDir);
  const catalog = new SeriesCatalog(db);
  const head = new HeadFragments(db);
  const blocks = new Blocks(db, layout.blockPoints);
  let closed = false;

  // Memory follows the file only once the transaction has committed: a rollback leaves both as they were.
  const writeInTransaction = db.transaction((batches: SeriesBatch[]) => {
    const created: SeriesEntry[] = [];
    const headCounts = new Map<number, number>();
    for (const batch of batches) {
      let series = catalog.find(batch.metric, batch.canonical);
      if (series === undefined) {
        series = catalog.insert(batch.metric, batch.tags, batch.canonical);
        created.push(series);
      }
      const run = runFromPoints(batch.timestamps, batch.values);
      const inHead = head.pointCounts.get(series.id) ?? 0;
      if (inHead + run.timestamps.length >= layout.headPoints) {
        blocks.seal(series.id, combineRuns([head.take(series.id), run]));
        headCounts.set(series.id, 0);
      } else {
        head.append(series.id, run);
        headCounts.set(series.id, inHead + run.timestamps.length);
      }
    }
    return { created, headCounts };
  });

  const readInTransaction = db.transaction((series: SeriesEntry[], start: number, end: number) => {
    const found: StoredSeries[] = [];
    for (const s of series) {
      // Head points were all written after every sealed point, so they win at equal timestamps.
      const sealed = blocks.read(s.id, start, end);
      const run = head.pointCounts.get(s.id) ? mergePreferringNewer(sealed, head.read(s.id, start, end)) : sealed;
      if (run.timestamps.length > 0) found.push({ tags: s.tags, timestamps: run.timestamps, values: run.values });
    }
    return found;
  });

  const commits = createGroupCommit((writes: (readonly Point[])[]) => {
    const { created, headCounts } = writeInTransaction(groupBySeries(writes));
    created.forEach((series) => catalog.remember(series));
    headCounts.forEach((count, id) => head.pointCounts.set(id, count));
  });

  const assertOpen = () => {
    if (closed) throw new AppError('SHUTTING_DOWN', 'the time-series store is closed');
  };

  const writer: PointWriter = {
    async writePoints(points: readonly Point[]) {
      assertOpen();
      assertValidPoints(points);
      if (points.length > 0) await commits.submit(points);
    },
  };

  const source: SeriesSource = {
    async readSeries(metric, filter, start, end) {
      assertOpen();
      const series = catalog.matching(metric, filter);
      if (series.length === 0 || start > end) return [];
      return readInTransaction(series, start, end);
    },
    async metricNames(prefix) {
      assertOpen();
      return catalog.metricNames(prefix);
    },
    async tagsOf(metric) {
      assertOpen();
      return catalog.tagsOf(metric);
    },
  };

  return {
    writer,
    source,
    readiness: sqliteReadinessCheck('timeseries', db),
    close() {
      if (closed) return;
      closed = true;
      // Writes already accepted are committed, not dropped.
      commits.flush();
      db.close();
    },
  };
}

interface TagTrie {
  readonly next: Map<string, TagTrie>;
  batch?: SeriesBatch;
}

/**
 * The points of some calls, per series, each in the order given (which decides which duplicate wins). Points find
 * their series through a trie of metric, then tag name and value pairs sorted by name: Map lookups cost a few tens
 * of ns a point, where building the canonical JSON per point cost ~200 ns, most of a write's CPU time.
 */
function groupBySeries(writes: readonly (readonly Point[])[]): SeriesBatch[] {
  const root: TagTrie = { next: new Map() };
  const batches: SeriesBatch[] = [];
  for (const p of writes.flat()) {
    let node = child(root, p.metric);
    const names = Object.keys(p.tags);
    if (names.length > 1) names.sort();
    for (const name of names) node = child(child(node, name), p.tags[name]);
    if (node.batch === undefined) {
      node.batch = { metric: p.metric, tags: p.tags, canonical: canonicalTags(p.tags), timestamps: [], values: [] };
      batches.push(node.batch);
    }
    node.batch.timestamps.push(p.timestamp);
    node.batch.values.push(p.value);
  }
  return batches;
}

function child(node: TagTrie, key: string): TagTrie {
  let next = node.next.get(key);
  if (next === undefined) node.next.set(key, (next = { next: new Map() }));
  return next;
}

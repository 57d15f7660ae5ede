import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { AppError } from '../../core/errors';
import { ReadinessCheck } from '../../health/port';
import { Point, StoredSeries } from '../../timeseries/point';
import { HistoryEraser, PointRange, PointWriter, SeriesSource } from '../../timeseries/port';
import { assertValidPoints } from '../../timeseries/validate-points';
import { Blocks } from './sqlite-timeseries-blocks';
import { canonicalTags, SeriesCatalog, SeriesEntry } from './sqlite-timeseries-catalog';
import { SeriesEraser } from './sqlite-timeseries-erase';
import { createGroupCommit } from './sqlite-timeseries-group-commit';
import { EMPTY_HEAD, HeadFragments, HeadSize } from './sqlite-timeseries-head';
import { combineRuns, mergePreferringNewer, runFromPoints } from './sqlite-timeseries-runs';
import { sqliteReadinessCheck } from '../sqlite/sqlite-readiness';
import { createWalSync } from '../sqlite/sqlite-wal-sync';
import { openSqliteTimeSeriesDatabase, timeSeriesFileIn } from './sqlite-timeseries-schema';

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
   * Points a series' head may hold: the write that reaches it seals the head into blocks. Each seal rewrites the
   * blocks the head's points fall in, so fewer seals mean fewer bytes rewritten per point written.
   */
  readonly headPoints: number;
  /**
   * Writes (fragments, one row each) a series' head may hold, whatever their points: the write that reaches it seals
   * too. It bounds what a read of recent data merges: one row per write, so one-point writers seal every this many
   * writes. Defaults to `headPoints` (a write holds at least one point, so then the points bound comes first).
   */
  readonly headFragments?: number;
}

/** How long a read of many series holds the event loop before it lets other requests in (issue 10). */
const READ_SLICE_MS = 8;

/**
 * Heads seal at 1024 points or 256 writes: batch writers (100 points a write) seal every ~10 writes, rewriting blocks
 * a quarter as often as with a 256-point head (batch ingest 176k -> 230k points/s through the REST batch call), and a
 * read of a one-point writer's recent data still merges at most 256 rows (0.8 ms; 1024 rows took 3.2 ms).
 */
export const DEFAULT_TIMESERIES_LAYOUT: TimeSeriesLayout = { blockPoints: 2048, headPoints: 1024, headFragments: 256 };

export interface SqliteTimeSeriesStore {
  readonly writer: PointWriter;
  readonly source: SeriesSource;
  readonly eraser: HistoryEraser;
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
 * The embedded time-series engine: DATA_DIR/timeseries.db. A writePoints call is committed and on disk when it
 * resolves; calls made in the same turn of the event loop share one transaction (group commit), whose WAL is synced
 * off the event loop (sqlite-wal-sync.ts). Points are
 * validated before they join one (assertValidPoints), so a bad point fails its own call alone and stores nothing.
 * better-sqlite3 is synchronous: calls run one at a time, and a read of one series of millions of points holds the
 * event loop for the time it takes (about 30 ms per million points read, measured with bench/timeseries-store.ts);
 * a read of many series yields between them. countPoints answers from the indexes, for the query budgets.
 */
export function createSqliteTimeSeriesStore(
  dataDir: string,
  layout: TimeSeriesLayout = DEFAULT_TIMESERIES_LAYOUT,
): SqliteTimeSeriesStore {
  for (const [name, value] of Object.entries(layout)) {
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`layout.${name} must be a positive integer`);
  }
  const headFragments = layout.headFragments ?? layout.headPoints;
  const db = openSqliteTimeSeriesDatabase(dataDir);
  const catalog = new SeriesCatalog(db);
  const head = new HeadFragments(db);
  const blocks = new Blocks(db, layout.blockPoints);
  const erase = new SeriesEraser(db);
  let closed = false;

  // Memory follows the file only once the transaction has committed: a rollback leaves both as they were.
  const writeInTransaction = db.transaction((batches: SeriesBatch[]) => {
    const created: SeriesEntry[] = [];
    const headSizes = new Map<number, HeadSize>();
    for (const batch of batches) {
      let series = catalog.find(batch.metric, batch.canonical);
      if (series === undefined) {
        series = catalog.insert(batch.metric, batch.tags, batch.canonical);
        created.push(series);
      }
      const run = runFromPoints(batch.timestamps, batch.values);
      const inHead = headSizes.get(series.id) ?? head.sizes.get(series.id) ?? EMPTY_HEAD;
      const points = inHead.points + run.timestamps.length;
      if (points >= layout.headPoints || inHead.fragments + 1 >= headFragments) {
        blocks.seal(series.id, combineRuns([head.take(series.id), run]));
        headSizes.set(series.id, EMPTY_HEAD);
      } else {
        head.append(series.id, run);
        headSizes.set(series.id, { points, fragments: inHead.fragments + 1 });
      }
    }
    return { created, headSizes };
  });

  // One series per transaction: its sealed blocks and its head are read together (a seal moves points from one to
  // the other in a write's transaction), and a read of many series lets other requests in between them.
  const readOneSeries = db.transaction((s: SeriesEntry, start: number, end: number): StoredSeries | undefined => {
    // Head points were all written after every sealed point, so they win at equal timestamps.
    const sealed = blocks.read(s.id, start, end);
    const run = head.holds(s.id) ? mergePreferringNewer(sealed, head.read(s.id, start, end)) : sealed;
    return run.timestamps.length > 0 ? { tags: s.tags, timestamps: run.timestamps, values: run.values } : undefined;
  });

  const countInTransaction = db.transaction((series: SeriesEntry[], start: number, end: number): number => {
    let points = 0;
    for (const s of series) points += blocks.countIn(s.id, start, end) + (head.holds(s.id) ? head.countIn(s.id, start, end) : 0);
    return points;
  });

  /** Deletes points; returns the series left without any (to forget) and the new head sizes, applied after commit. */
  const eraseInTransaction = db.transaction((ranges: readonly PointRange[]) => {
    const emptied = new Map<number, SeriesEntry>();
    const headSizes = new Map<number, HeadSize>();
    for (const range of ranges) {
      for (const series of catalog.matching(range.metric, range.tags)) {
        if (emptied.has(series.id)) continue;
        const { empty, head: left } = erase.eraseRange(series.id, range.start, range.end);
        headSizes.set(series.id, left);
        if (empty) emptied.set(series.id, series);
      }
    }
    for (const series of emptied.values()) catalog.delete(series);
    return { emptied: [...emptied.values()], headSizes };
  });

  const eraseMetricInTransaction = db.transaction((metric: string) => {
    const series = catalog.matching(metric, {});
    for (const s of series) {
      erase.eraseSeries(s.id);
      catalog.delete(s);
    }
    return series;
  });

  const forget = (series: readonly SeriesEntry[]) => {
    for (const s of series) {
      catalog.forget(s);
      head.sizes.delete(s.id);
    }
  };

  const walSync = createWalSync(timeSeriesFileIn(dataDir));
  const commits = createGroupCommit((writes: (readonly Point[])[]) => {
    const { created, headSizes } = writeInTransaction(groupBySeries(writes));
    created.forEach((series) => catalog.remember(series));
    headSizes.forEach((size, id) => head.sizes.set(id, size));
  }, walSync);

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
      const found: StoredSeries[] = [];
      let sliceEnd = performance.now() + READ_SLICE_MS;
      for (const s of series) {
        if (performance.now() > sliceEnd) {
          await nextTurn();
          assertOpen();
          sliceEnd = performance.now() + READ_SLICE_MS;
        }
        const one = readOneSeries(s, start, end);
        if (one !== undefined) found.push(one);
      }
      return found;
    },
    async countPoints(metric, filter, start, end) {
      assertOpen();
      const series = catalog.matching(metric, filter);
      return series.length === 0 || start > end ? 0 : countInTransaction(series, start, end);
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

  const eraser: HistoryEraser = {
    async deletePoints(ranges) {
      assertOpen();
      // Writes submitted before this call commit first, so they are deleted too.
      commits.flush();
      const { emptied, headSizes } = eraseInTransaction(ranges);
      headSizes.forEach((size, id) => head.sizes.set(id, size));
      forget(emptied);
    },
    async deleteMetric(metric) {
      assertOpen();
      commits.flush();
      forget(eraseMetricInTransaction(metric));
    },
  };

  return {
    writer,
    source,
    eraser,
    readiness: sqliteReadinessCheck('timeseries', db),
    close() {
      if (closed) return;
      closed = true;
      // Writes already accepted are committed, not dropped.
      commits.flush();
      db.close();
      walSync.close();
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
  // Points of one series often share their tags object (timeseries/shadow-points.ts, outbox rows): one look-up then.
  const byTagsObject = new Map<object, SeriesBatch>();
  for (const p of writes.flat()) {
    const known = byTagsObject.get(p.tags);
    if (known !== undefined && known.metric === p.metric) {
      known.timestamps.push(p.timestamp);
      known.values.push(p.value);
      continue;
    }
    let node = child(root, p.metric);
    const names = Object.keys(p.tags);
    if (names.length > 1) names.sort();
    for (const name of names) node = child(child(node, name), p.tags[name]);
    if (node.batch === undefined) {
      node.batch = { metric: p.metric, tags: p.tags, canonical: canonicalTags(p.tags), timestamps: [], values: [] };
      batches.push(node.batch);
    }
    byTagsObject.set(p.tags, node.batch);
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

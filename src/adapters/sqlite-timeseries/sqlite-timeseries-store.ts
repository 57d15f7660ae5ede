import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { AppError } from '../../core/errors';
import { ReadinessCheck } from '../../health/port';
import { Point, StoredSeries } from '../../timeseries/point';
import { HistoryEraser, PointRange, PointWriter, SeriesSource } from '../../timeseries/port';
import { assertValidPoints } from '../../timeseries/validate-points';
import { Blocks } from './sqlite-timeseries-blocks';
import { canonicalTags, SeriesCatalog, SeriesEntry } from './sqlite-timeseries-catalog';
import { CleanupReport, CleanupStep, RetentionCleanup } from './sqlite-timeseries-cleanup';
import { SeriesEraser } from './sqlite-timeseries-erase';
import { createGroupCommit } from './sqlite-timeseries-group-commit';
import { EMPTY_HEAD, HeadFragments, HeadSize } from './sqlite-timeseries-head';
import { combineRuns, dropExpired, lastExpiry, mergePreferringNewer, runFromPoints } from './sqlite-timeseries-runs';
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

/** The retention cleanup (issue 23 §2) and the clock that decides which points have expired. */
export interface TimeSeriesUpkeep {
  /** POINT_CLEANUP_INTERVAL_MS: how often the blocks of expired points are dropped; 0: only when `cleanup` is called. */
  readonly cleanupEveryMs: number;
  readonly now?: () => number;
  /** Told what each scheduled cleanup did, or why it failed (the service logs it). */
  readonly onCleanup?: (result: CleanupReport | Error) => void;
}

const DEFAULT_UPKEEP: TimeSeriesUpkeep = { cleanupEveryMs: 0 };

export interface SqliteTimeSeriesStore {
  readonly writer: PointWriter;
  readonly source: SeriesSource;
  readonly eraser: HistoryEraser;
  /** For /readyz: a trivial query on timeseries.db. */
  readonly readiness: ReadinessCheck;
  /**
   * Reclaims the space of expired points now, as the scheduled cleanup does: heads holding one are sealed without
   * them, blocks whose points have all expired are dropped, series left empty are forgotten, and free pages go back to
   * the file system. Answers never include expired points, cleaned or not.
   */
  cleanup(): CleanupReport;
  /** Idempotent; later calls of the writer and the source reject with SHUTTING_DOWN. */
  close(): void;
}

interface SeriesBatch {
  metric: string;
  tags: Readonly<Record<string, string>>;
  canonical: string;
  timestamps: number[];
  values: number[];
  /** Each point's expiry (Infinity: never), once a point of the batch has one. */
  expiries: number[] | undefined;
}

/**
 * The embedded time-series engine: DATA_DIR/timeseries.db. A writePoints call is committed and on disk when it
 * resolves; calls made in the same turn of the event loop share one transaction (group commit), whose WAL is synced
 * off the event loop (sqlite-wal-sync.ts). Points are
 * validated before they join one (assertValidPoints), so a bad point fails its own call alone and stores nothing.
 * better-sqlite3 is synchronous: calls run one at a time, and a read of one series of millions of points holds the
 * event loop for the time it takes (about 30 ms per million points read, measured with bench/timeseries-store.ts);
 * a read of many series yields between them. countPoints answers from the indexes, for the query budgets.
 *
 * Retention (issue 23 §2): a point written with `expiresAt` is never answered from then on (reads drop it after the
 * last-write-wins merge, listings leave out series whose points have all expired, counts leave out expired blocks);
 * a point already expired when written is not stored. Its space is reclaimed by the cleanup (`upkeep`), whole blocks
 * at a time; a seal that rewrites a block leaves its expired points out.
 */
export function createSqliteTimeSeriesStore(
  dataDir: string,
  layout: TimeSeriesLayout = DEFAULT_TIMESERIES_LAYOUT,
  upkeep: TimeSeriesUpkeep = DEFAULT_UPKEEP,
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
  const retention = new RetentionCleanup(db, { blocks, head, catalog });
  const now = upkeep.now ?? Date.now;
  for (const [id, last] of retention.lastExpiryOfEachSeries()) catalog.setLastExpiry(id, last);
  let closed = false;

  // Memory follows the file only once the transaction has committed: a rollback leaves both as they were.
  const writeInTransaction = db.transaction((batches: SeriesBatch[], at: number) => {
    const created: SeriesEntry[] = [];
    const headSizes = new Map<number, HeadSize>();
    const lastExpiries = new Map<number, number>();
    for (const batch of batches) {
      let series = catalog.find(batch.metric, batch.canonical);
      const known = series !== undefined;
      if (series === undefined) {
        series = catalog.insert(batch.metric, batch.tags, batch.canonical);
        created.push(series);
      }
      const run = runFromPoints(batch.timestamps, batch.values, batch.expiries);
      lastExpiries.set(series.id, Math.max(catalog.lastExpiryOf(series.id, known), lastExpiry(run)));
      const inHead = headSizes.get(series.id) ?? head.sizes.get(series.id) ?? EMPTY_HEAD;
      const points = inHead.points + run.timestamps.length;
      if (points >= layout.headPoints || inHead.fragments + 1 >= headFragments) {
        blocks.seal(series.id, combineRuns([head.take(series.id), run]), at);
        headSizes.set(series.id, EMPTY_HEAD);
      } else {
        head.append(series.id, run);
        headSizes.set(series.id, { points, fragments: inHead.fragments + 1 });
      }
    }
    return { created, headSizes, lastExpiries };
  });

  // One series per transaction: its sealed blocks and its head are read together (a seal moves points from one to
  // the other in a write's transaction), and a read of many series lets other requests in between them.
  const readOneSeries = db.transaction((s: SeriesEntry, start: number, end: number, at: number): StoredSeries | undefined => {
    // Head points were all written after every sealed point, so they win at equal timestamps; a point that replaced
    // another and has expired takes the other with it, so expired points go only after the merge.
    const sealed = blocks.read(s.id, start, end, at);
    const run = dropExpired(head.holds(s.id) ? mergePreferringNewer(sealed, head.read(s.id, start, end)) : sealed, at);
    return run.timestamps.length > 0 ? { tags: s.tags, timestamps: run.timestamps, values: run.values } : undefined;
  });

  const countInTransaction = db.transaction((series: SeriesEntry[], start: number, end: number, at: number): number => {
    let points = 0;
    for (const s of series) points += blocks.countIn(s.id, start, end, at) + (head.holds(s.id) ? head.countIn(s.id, start, end) : 0);
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
    const { created, headSizes, lastExpiries } = writeInTransaction(groupBySeries(writes), now());
    created.forEach((series) => catalog.remember(series));
    headSizes.forEach((size, id) => head.sizes.set(id, size));
    lastExpiries.forEach((last, id) => catalog.setLastExpiry(id, last));
  }, walSync);

  /** One cleanup step at `at`, its changes applied to memory once committed; writes submitted before it commit first. */
  function cleanupStep(at: number): CleanupStep {
    assertOpen();
    commits.flush();
    const step = retention.run(at);
    step.headSizes.forEach((size, id) => head.sizes.set(id, size));
    forget(step.emptied);
    if (step.lastExpiries) for (const s of catalog.all()) catalog.setLastExpiry(s.id, step.lastExpiries.get(s.id) ?? Infinity);
    return step;
  }

  /** The steps of one cleanup, all at one time, until done (or the store closes). */
  function* cleanupSteps(): Generator<CleanupStep> {
    const at = now();
    for (let done = false; !done && !closed; ) {
      const step = cleanupStep(at);
      yield step;
      done = step.done;
    }
  }

  const sumOf = (total: CleanupReport, step: CleanupReport): CleanupReport => ({
    headsSealed: total.headsSealed + step.headsSealed,
    blocksDropped: total.blocksDropped + step.blocksDropped,
    seriesForgotten: total.seriesForgotten + step.seriesForgotten,
    pagesFreed: total.pagesFreed + step.pagesFreed,
  });
  const NOTHING: CleanupReport = { headsSealed: 0, blocksDropped: 0, seriesForgotten: 0, pagesFreed: 0 };

  function cleanup(): CleanupReport {
    let total = NOTHING;
    for (const step of cleanupSteps()) total = sumOf(total, step);
    return total;
  }

  /** The scheduled cleanup: other requests are served between its steps. */
  async function cleanupBetweenRequests(): Promise<CleanupReport> {
    let total = NOTHING;
    for (const step of cleanupSteps()) {
      total = sumOf(total, step);
      if (!step.done) await nextTurn();
    }
    return total;
  }

  let cleaning = false;
  const cleanupTimer = upkeep.cleanupEveryMs > 0
    ? setInterval(() => {
        if (cleaning || closed) return;
        cleaning = true;
        cleanupBetweenRequests().then(
          (report) => upkeep.onCleanup?.(report),
          (err: unknown) => upkeep.onCleanup?.(err instanceof Error ? err : new Error(String(err))),
        ).finally(() => (cleaning = false));
      }, upkeep.cleanupEveryMs).unref()
    : undefined;

  const assertOpen = () => {
    if (closed) throw new AppError('SHUTTING_DOWN', 'the time-series store is closed');
  };

  const writer: PointWriter = {
    async writePoints(points: readonly Point[]) {
      assertOpen();
      assertValidPoints(points);
      // A point already expired (back-filled, or held up in the outbox) would never be answered: not stored at all.
      const kept = points.some((p) => p.expiresAt !== undefined) ? withoutExpired(points, now()) : points;
      if (kept.length > 0) await commits.submit(kept);
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
        const one = readOneSeries(s, start, end, now());
        if (one !== undefined) found.push(one);
      }
      return found;
    },
    async countPoints(metric, filter, start, end) {
      assertOpen();
      const series = catalog.matching(metric, filter);
      return series.length === 0 || start > end ? 0 : countInTransaction(series, start, end, now());
    },
    async metricNames(prefix) {
      assertOpen();
      return catalog.metricNames(prefix, now());
    },
    async tagsOf(metric) {
      assertOpen();
      return catalog.tagsOf(metric, now());
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
    cleanup,
    close() {
      if (closed) return;
      closed = true;
      clearInterval(cleanupTimer);
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
      addPoint(known, p);
      continue;
    }
    let node = child(root, p.metric);
    const names = Object.keys(p.tags);
    if (names.length > 1) names.sort();
    for (const name of names) node = child(child(node, name), p.tags[name]);
    if (node.batch === undefined) {
      node.batch = { metric: p.metric, tags: p.tags, canonical: canonicalTags(p.tags), timestamps: [], values: [], expiries: undefined };
      batches.push(node.batch);
    }
    byTagsObject.set(p.tags, node.batch);
    addPoint(node.batch, p);
  }
  return batches;
}

function addPoint(batch: SeriesBatch, p: Point): void {
  batch.timestamps.push(p.timestamp);
  batch.values.push(p.value);
  const { expiresAt } = p;
  if (batch.expiries !== undefined) batch.expiries.push(expiresAt ?? Infinity);
  else if (expiresAt !== undefined) batch.expiries = [...batch.timestamps.slice(0, -1).map(() => Infinity), expiresAt];
}

const withoutExpired = (points: readonly Point[], now: number) => points.filter((p) => p.expiresAt === undefined || p.expiresAt > now);

function child(node: TagTrie, key: string): TagTrie {
  let next = node.next.get(key);
  if (next === undefined) node.next.set(key, (next = { next: new Map() }));
  return next;
}

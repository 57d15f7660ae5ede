import type { Database } from 'better-sqlite3';
import { Blocks } from './sqlite-timeseries-blocks';
import { SeriesCatalog, SeriesEntry } from './sqlite-timeseries-catalog';
import { EMPTY_HEAD, HeadFragments, HeadSize } from './sqlite-timeseries-head';

/** What one cleanup did, for logs, tests and the bench. */
export interface CleanupReport {
  /** Series whose head held an expired point, sealed without it. */
  readonly headsSealed: number;
  /** Blocks dropped whole, every point of theirs expired. */
  readonly blocksDropped: number;
  /** Series left without any point, forgotten (gone from metric names and tag listings). */
  readonly seriesForgotten: number;
  /** Pages given back to the file system (incremental vacuum; 0 on a file made before retention, which reuses them). */
  readonly pagesFreed: number;
}

/** One step of a cleanup, committed; what the store's memory must follow once it is. */
export interface CleanupStep extends CleanupReport {
  readonly headSizes: ReadonlyMap<number, HeadSize>;
  readonly emptied: readonly SeriesEntry[];
  /** When the last point of each series expires (Infinity: never), once the expired blocks are all dropped. */
  readonly lastExpiries?: ReadonlyMap<number, number>;
  /** Whether nothing is left to do at this time. */
  readonly done: boolean;
}

/**
 * A step's bounds: each step is one transaction run on the event loop, so a large backlog (the first cleanup after a
 * short retention on a big file) goes in steps of a few tens of milliseconds, other requests served in between.
 */
const BLOCKS_PER_STEP = 2000;
const PAGES_PER_STEP = 2048;

/**
 * The retention cleanup (issue 23 §2) on timeseries.db. Expired points are never answered, whatever this has done
 * yet: it only reclaims their space, by whole blocks (the unit the engine writes), found through `blocks_by_expiry`.
 * A step seals the heads holding an expired point (the seal leaves expired points out, after the last-write-wins
 * merge), drops up to BLOCKS_PER_STEP expired blocks, and once none is left forgets the series left empty and gives
 * up to PAGES_PER_STEP free pages back to the file system.
 */
export class RetentionCleanup {
  private readonly expiredHeads;
  private readonly dropBlocks;
  private readonly emptySeries;
  private readonly lastExpiries;
  private readonly step;

  constructor(
    private readonly db: Database,
    parts: { blocks: Blocks; head: HeadFragments; catalog: SeriesCatalog },
  ) {
    const { blocks, head, catalog } = parts;
    this.expiredHeads = db.prepare('SELECT DISTINCT series_id AS id FROM head WHERE expires_at <= ?').pluck();
    this.dropBlocks = db.prepare('DELETE FROM blocks WHERE id IN (SELECT id FROM blocks WHERE expires_at <= ? LIMIT ?)');
    this.emptySeries = db.prepare(
      `SELECT id FROM series s
       WHERE NOT EXISTS (SELECT 1 FROM blocks WHERE series_id = s.id) AND NOT EXISTS (SELECT 1 FROM head WHERE series_id = s.id)`,
    ).pluck();
    // From the indexes alone: blocks_by_series_time_expiry, and the head's few rows.
    this.lastExpiries = db.prepare(
      `SELECT series_id AS id, MAX(expires_at) AS last, SUM(expires_at IS NULL) AS never FROM (
         SELECT series_id, expires_at FROM blocks UNION ALL SELECT series_id, expires_at FROM head
       ) GROUP BY series_id`,
    );
    this.step = db.transaction((at: number) => {
      const headSizes = new Map<number, HeadSize>();
      const sealed = this.expiredHeads.all(at) as number[];
      for (const id of sealed) {
        blocks.seal(id, head.take(id), at);
        headSizes.set(id, EMPTY_HEAD);
      }
      const blocksDropped = this.dropBlocks.run(at, BLOCKS_PER_STEP).changes;
      if (blocksDropped === BLOCKS_PER_STEP) return { headSizes, emptied: [], blocksDropped, headsSealed: sealed.length };
      const empty = new Set(this.emptySeries.all() as number[]);
      const emptied = catalog.all().filter((s) => empty.has(s.id));
      for (const s of emptied) catalog.delete(s);
      return { headSizes, emptied, blocksDropped, headsSealed: sealed.length, lastExpiries: this.lastExpiryOfEachSeries() };
    });
  }

  /** When the last point of each series expires; Infinity where one never does. */
  lastExpiryOfEachSeries(): Map<number, number> {
    const rows = this.lastExpiries.all() as { id: number; last: number | null; never: number }[];
    return new Map(rows.map((r) => [r.id, r.never > 0 || r.last === null ? Infinity : r.last]));
  }

  /** One step at `at`, committed; the caller applies it to the store's memory. */
  run(at: number): CleanupStep {
    const step = this.step(at);
    const pagesFreed = step.lastExpiries === undefined ? 0 : this.freePages();
    const done = step.lastExpiries !== undefined && pagesFreed < PAGES_PER_STEP;
    return { ...step, seriesForgotten: step.emptied.length, pagesFreed, done };
  }

  /**
   * Gives free pages back to the file system, on a file made with auto_vacuum=INCREMENTAL (every file made since
   * retention); an older file keeps them on its freelist, which later writes fill before the file grows.
   */
  private freePages(): number {
    if (this.db.pragma('auto_vacuum', { simple: true }) !== 2) return 0;
    const before = this.db.pragma('page_count', { simple: true }) as number;
    this.db.pragma(`incremental_vacuum(${PAGES_PER_STEP})`);
    return before - (this.db.pragma('page_count', { simple: true }) as number);
  }
}

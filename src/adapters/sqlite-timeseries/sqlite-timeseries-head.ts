import type { Database } from 'better-sqlite3';
import { decodeRun, encodeRun } from './sqlite-timeseries-codec';
import { combineRuns, Run, sliceRun } from './sqlite-timeseries-runs';

export interface HeadSize {
  points: number;
  fragments: number;
}

export const EMPTY_HEAD: HeadSize = { points: 0, fragments: 0 };

interface FragmentRow {
  first_ts: number;
  count: number;
  timestamps: Buffer;
  values: Buffer;
  expiries: Buffer | null;
}

/**
 * The `head` table: what each write added to a series since its last seal, one row (fragment) per write and series.
 * Appending a fragment costs one small INSERT whatever the head already holds, which keeps a write of a few points
 * cheap; the price is paid by reads of recent data, which merge the fragments (bounded by the seal threshold).
 * Row ids grow with every write, so ordering by id is write order: "last write wins" between fragments.
 */
export class HeadFragments {
  private readonly insert;
  private readonly inRange;
  private readonly countInRange;
  private readonly all;
  private readonly remove;
  /** Each series' head: points (duplicates counted) and fragments, loaded at open and kept by the store after each commit. */
  readonly sizes = new Map<number, HeadSize>();

  constructor(db: Database) {
    this.insert = db.prepare(
      'INSERT INTO head (series_id, first_ts, last_ts, count, timestamps, "values", expiries, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.inRange = db.prepare(
      `SELECT first_ts, count, timestamps, "values", expiries FROM head
       WHERE series_id = ? AND last_ts >= ? AND first_ts <= ? ORDER BY id`,
    );
    this.countInRange = db.prepare(
      'SELECT COALESCE(SUM(count), 0) AS points FROM head WHERE series_id = ? AND last_ts >= ? AND first_ts <= ?',
    );
    this.all = db.prepare('SELECT first_ts, count, timestamps, "values", expiries FROM head WHERE series_id = ? ORDER BY id');
    this.remove = db.prepare('DELETE FROM head WHERE series_id = ?');
    const counts = db.prepare('SELECT series_id AS id, SUM(count) AS points, COUNT(*) AS fragments FROM head GROUP BY series_id');
    for (const row of counts.all() as ({ id: number } & HeadSize)[]) this.sizes.set(row.id, { points: row.points, fragments: row.fragments });
  }

  /** Whether the series' head holds any point (a read must merge it). */
  holds(seriesId: number): boolean {
    return (this.sizes.get(seriesId)?.points ?? 0) > 0;
  }

  append(seriesId: number, run: Run): void {
    const e = encodeRun(run);
    this.insert.run(seriesId, e.firstTs, e.lastTs, e.count, e.timestamps, e.values, e.expiries, e.expiresAt);
  }

  /**
   * The head's points in [start, end], last write winning, with their expiries. Expired fragments are read too: a
   * point they hold may have replaced an older one, which must not come back (the caller drops expired points after
   * merging).
   */
  read(seriesId: number, start: number, end: number): Run {
    const rows = this.inRange.all(seriesId, start, end) as FragmentRow[];
    return combineRuns(rows.map((r) => sliceRun(toRun(r), start, end)));
  }

  /** The points of the fragments a read of [start, end] decodes, duplicates counted. */
  countIn(seriesId: number, start: number, end: number): number {
    return (this.countInRange.get(seriesId, start, end) as { points: number }).points;
  }

  /** Every point of the head, last write winning, deleting the rows: the first half of a seal. */
  take(seriesId: number): Run {
    const rows = this.all.all(seriesId) as FragmentRow[];
    if (rows.length > 0) this.remove.run(seriesId);
    return combineRuns(rows.map(toRun));
  }
}

const toRun = (r: FragmentRow) => decodeRun(r.first_ts, r.count, r.timestamps, r.values, r.expiries);

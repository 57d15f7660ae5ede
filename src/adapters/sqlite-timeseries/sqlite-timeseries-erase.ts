import type { Database } from 'better-sqlite3';
import { decodeRun, encodeRun } from './sqlite-timeseries-codec';
import { HeadSize } from './sqlite-timeseries-head';
import { Run } from './sqlite-timeseries-runs';

interface RunRow {
  id: number;
  first_ts: number;
  count: number;
  timestamps: Buffer;
  values: Buffer;
  expiries: Buffer | null;
}

type Table = 'blocks' | 'head';

/**
 * Deleting points (KairosDB's /datapoints/delete and DELETE /metric, reference §8) from both tables of a series. A
 * block or head fragment that holds deleted points is rewritten in place, under its own row id: head fragments are
 * ordered by id ("last write wins", sqlite-timeseries-head.ts), and blocks keep their place in time (they never
 * overlap, and what remains of one lies within its old span). Runs in the caller's transaction.
 */
export class SeriesEraser {
  private readonly overlapping;
  private readonly update;
  private readonly remove;
  private readonly removeAll;
  private readonly rowsLeft;
  private readonly headSize;

  constructor(db: Database) {
    const statements = <T>(make: (table: Table) => T) => ({ blocks: make('blocks'), head: make('head') });
    this.overlapping = statements((table) => db.prepare(
      `SELECT id, first_ts, count, timestamps, "values", expiries FROM ${table} WHERE series_id = ? AND last_ts >= ? AND first_ts <= ?`,
    ));
    this.update = statements((table) => db.prepare(
      `UPDATE ${table} SET first_ts = ?, last_ts = ?, count = ?, timestamps = ?, "values" = ?, expiries = ?, expires_at = ? WHERE id = ?`,
    ));
    this.remove = statements((table) => db.prepare(`DELETE FROM ${table} WHERE id = ?`));
    this.removeAll = statements((table) => db.prepare(`DELETE FROM ${table} WHERE series_id = ?`));
    this.rowsLeft = db.prepare(
      'SELECT (SELECT COUNT(*) FROM blocks WHERE series_id = ?) + (SELECT COUNT(*) FROM head WHERE series_id = ?) AS n',
    );
    this.headSize = db.prepare('SELECT COALESCE(SUM(count), 0) AS points, COUNT(*) AS fragments FROM head WHERE series_id = ?');
  }

  /** Deletes the series' points in [start, end]: whether any point is left, and what its head holds now. */
  eraseRange(seriesId: number, start: number, end: number): { empty: boolean; head: HeadSize } {
    for (const table of ['blocks', 'head'] as const) {
      for (const row of this.overlapping[table].all(seriesId, start, end) as RunRow[]) {
        const run = decodeRun(row.first_ts, row.count, row.timestamps, row.values, row.expiries);
        const kept = outside(run, start, end);
        if (kept.timestamps.length === run.timestamps.length) continue;
        if (kept.timestamps.length === 0) {
          this.remove[table].run(row.id);
        } else {
          const e = encodeRun(kept);
          this.update[table].run(e.firstTs, e.lastTs, e.count, e.timestamps, e.values, e.expiries, e.expiresAt, row.id);
        }
      }
    }
    const { n } = this.rowsLeft.get(seriesId, seriesId) as { n: number };
    return { empty: n === 0, head: this.headSize.get(seriesId) as HeadSize };
  }

  /** Deletes every point of the series. */
  eraseSeries(seriesId: number): void {
    this.removeAll.blocks.run(seriesId);
    this.removeAll.head.run(seriesId);
  }
}

/** The points of `run` before `start` or after `end`. */
function outside(run: Run, start: number, end: number): Run {
  const keep: number[] = [];
  for (let i = 0; i < run.timestamps.length; i++) if (run.timestamps[i] < start || run.timestamps[i] > end) keep.push(i);
  const kept = {
    timestamps: Float64Array.from(keep, (i) => run.timestamps[i]),
    values: Float64Array.from(keep, (i) => run.values[i]),
  };
  const { expiries } = run;
  return expiries === undefined ? kept : { ...kept, expiries: Float64Array.from(keep, (i) => expiries[i]) };
}

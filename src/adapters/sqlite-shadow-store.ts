import type { Database } from 'better-sqlite3';
import * as t from 'io-ts';
import { decodeOrThrow } from '../decode-errors';
import { AppError } from '../errors';
import { PointOutbox, ShadowCommit, ShadowStore } from '../shadows/port';
import { Point } from '../timeseries/point';
import { usageAdder } from './sqlite-quota-store';

const ShadowRow = t.type({ deviceid: t.string, data: t.string, rev: t.number, modified: t.number, timestamp: t.number });
const OutboxRow = t.type({ id: t.number, points: t.string });

/**
 * Shadows, the point outbox and the quota counters share one SQLite database, so a write, its points and its quota
 * charge commit in one transaction.
 */
export function createSqliteShadowStore(db: Database): ShadowStore & PointOutbox {
  const select = db.prepare('SELECT * FROM shadows WHERE deviceid = ?');
  const insert = db.prepare(
    `INSERT INTO shadows (deviceid, data, rev, modified, timestamp) VALUES (@deviceid, @data, @rev, @modified, @timestamp)
     ON CONFLICT (deviceid) DO NOTHING`,
  );
  const update = db.prepare(
    `UPDATE shadows SET data = @data, rev = @rev, modified = @modified, timestamp = @timestamp
     WHERE deviceid = @deviceid AND rev = @expectedRev`,
  );
  const deviceExists = db.prepare('SELECT 1 FROM devices WHERE deviceid = ?');
  const enqueue = db.prepare('INSERT INTO point_outbox (points) VALUES (?)');
  const oldest = db.prepare('SELECT id, points FROM point_outbox ORDER BY id LIMIT ?');
  const removeUpTo = db.prepare('DELETE FROM point_outbox WHERE id <= ?');
  const addUsage = usageAdder(db);

  const commit = db.transaction(({ shadow, expectedRev, points, charge }: ShadowCommit): boolean => {
    if (shadow) {
      const row = { ...shadow, data: JSON.stringify(shadow.data) };
      const changed = (expectedRev === 0 ? insert.run(row) : update.run({ ...row, expectedRev })).changes;
      if (changed !== 1) {
        // The update found no row at that rev: a lost race, or a device deleted with its shadow (port contract).
        if (deviceExists.get(shadow.deviceid) === undefined) throw new AppError('DEVICE_NOT_FOUND', `device ${shadow.deviceid} no longer exists`);
        return false;
      }
    }
    if (points.length > 0) enqueue.run(JSON.stringify(points));
    if (charge) addUsage(charge);
    return true;
  });

  return {
    async readShadow(deviceid) {
      const row = select.get(deviceid);
      if (row === undefined) return undefined;
      const r = decodeOrThrow(ShadowRow, row, 'INTERNAL');
      return { ...r, data: JSON.parse(r.data) };
    },
    async commitShadowWrite(c) {
      try {
        return commit(c);
      } catch (err) {
        if (err instanceof Error && 'code' in err && err.code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
          throw new AppError('DEVICE_NOT_FOUND', `device ${c.shadow?.deviceid ?? ''} no longer exists`);
        }
        throw err;
      }
    },
    async peek(max) {
      const points: Point[] = [];
      let upTo = 0;
      // Rows hold whole writes; stop at the first row that would pass `max` (but always take one).
      for (const raw of oldest.iterate(max)) {
        const row = decodeOrThrow(OutboxRow, raw, 'INTERNAL');
        const batch = JSON.parse(row.points) as Point[];
        if (points.length > 0 && points.length + batch.length > max) break;
        points.push(...batch);
        upTo = row.id;
      }
      return { points, upTo };
    },
    async remove(upTo) {
      removeUpTo.run(upTo);
    },
  };
}

import type { Database } from 'better-sqlite3';
import * as t from 'io-ts';
import { decodeOrThrow } from '../decode-errors';
import { AppError } from '../errors';
import { ShadowStore } from '../shadows/port';

const ShadowRow = t.type({ deviceid: t.string, data: t.string, rev: t.number, modified: t.number, timestamp: t.number });

export function createSqliteShadowStore(db: Database): ShadowStore {
  const select = db.prepare('SELECT * FROM shadows WHERE deviceid = ?');
  const insert = db.prepare(
    `INSERT INTO shadows (deviceid, data, rev, modified, timestamp) VALUES (@deviceid, @data, @rev, @modified, @timestamp)
     ON CONFLICT (deviceid) DO NOTHING`,
  );
  const update = db.prepare(
    `UPDATE shadows SET data = @data, rev = @rev, modified = @modified, timestamp = @timestamp
     WHERE deviceid = @deviceid AND rev = @expectedRev`,
  );

  return {
    async readShadow(deviceid) {
      const row = select.get(deviceid);
      if (row === undefined) return undefined;
      const r = decodeOrThrow(ShadowRow, row, 'INTERNAL');
      return { ...r, data: JSON.parse(r.data) };
    },
    async compareAndSetShadow(next, expectedRev) {
      const row = { ...next, data: JSON.stringify(next.data) };
      try {
        return (expectedRev === 0 ? insert.run(row) : update.run({ ...row, expectedRev })).changes === 1;
      } catch (err) {
        if (err instanceof Error && 'code' in err && err.code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
          throw new AppError('DEVICE_NOT_FOUND', `device ${next.deviceid} no longer exists`);
        }
        throw err;
      }
    },
  };
}

import type { Database } from 'better-sqlite3';
import * as t from 'io-ts';
import { decodeOrThrow } from '../../core/decode-errors';
import { AppError } from '../../core/errors';
import { isJsonObject } from '../../core/json';
import { DesiredStore } from '../../desired/port';

const DesiredRow = t.type({ deviceid: t.string, data: t.string, rev: t.number, modified: t.number });

/** The foreign key of `desired` to `devices` (sqlite-database.ts): the device is gone. */
const isMissingDevice = (err: unknown) => err instanceof Error && (err as { code?: string }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY';

/**
 * Desired documents in table `desired` of openpie.db, deleted with their device (ON DELETE CASCADE). A write is one
 * statement on the service's connection (synchronous=FULL, as registry writes): an INSERT for the first, then an
 * UPDATE guarded by the rev it expects.
 */
export function createSqliteDesiredStore(db: Database): DesiredStore {
  const select = db.prepare('SELECT deviceid, data, rev, modified FROM desired WHERE deviceid = ?');
  const insert = db.prepare(
    'INSERT INTO desired (deviceid, data, rev, modified) VALUES (@deviceid, @data, @rev, @modified) ON CONFLICT (deviceid) DO NOTHING',
  );
  const update = db.prepare('UPDATE desired SET data = @data, rev = @rev, modified = @modified WHERE deviceid = @deviceid AND rev = @expectedRev');

  return {
    async readDesired(deviceid) {
      const row = select.get(deviceid);
      if (row === undefined) return undefined;
      const { data, rev, modified } = decodeOrThrow(DesiredRow, row, 'INTERNAL');
      const desired: unknown = JSON.parse(data);
      if (!isJsonObject(desired)) throw new Error(`desired document of ${deviceid} is not a JSON object`);
      return { deviceid, desired, rev, modified };
    },
    async commitDesired(next, expectedRev) {
      const row = { deviceid: next.deviceid, data: JSON.stringify(next.desired), rev: next.rev, modified: next.modified };
      try {
        return (expectedRev === 0 ? insert.run(row) : update.run({ ...row, expectedRev })).changes === 1;
      } catch (err) {
        if (isMissingDevice(err)) throw new AppError('DEVICE_NOT_FOUND', `device ${next.deviceid} no longer exists`);
        throw err;
      }
    },
  };
}

import type { Database } from 'better-sqlite3';
import * as t from 'io-ts';
import { decodeOrThrow } from '../../core/decode-errors';
import { CredentialKey } from '../../devices/credential-key';
import { isKeptDigest, mayBeKeptPlaintext } from '../../devices/credentials';
import { Device } from '../../devices/device';
import { DeviceFilter, DeviceStore } from '../../devices/port';
import { AppError } from '../../core/errors';

const DeviceRow = t.type({
  deviceid: t.string,
  token: t.string,
  secret: t.string,
  alias: t.string,
  groupid: t.string,
  projectid: t.string,
  enabled: t.number,
  banned: t.number,
  description: t.string,
  livenessttl: t.number,
  created: t.number,
});

/** A row an older release wrote has its credentials in plaintext: the record holds their digests all the same. */
const toDeviceWith = (key: CredentialKey) => (row: unknown): Device => {
  const r = decodeOrThrow(DeviceRow, row, 'INTERNAL');
  const keep = (kept: string) => (isKeptDigest(kept) ? kept : key.digest(kept));
  return { ...r, token: keep(r.token), secret: keep(r.secret), enabled: r.enabled === 1, banned: r.banned === 1 };
};

const toRow = (d: Device) => ({ ...d, enabled: d.enabled ? 1 : 0, banned: d.banned ? 1 : 0 });

function translate(err: unknown, device: Device): never {
  const code = err instanceof Error && 'code' in err ? err.code : undefined;
  if (code === 'SQLITE_CONSTRAINT_UNIQUE') {
    throw new AppError('ALIAS_TAKEN', `alias "${device.alias}" is already used in group ${device.groupid}`);
  }
  if (code === 'SQLITE_CONSTRAINT_PRIMARYKEY') throw new AppError('DEVICE_ID_TAKEN', `device id ${device.deviceid} is already in use`);
  throw err;
}

/**
 * The registry in SQLite. `token` and `secret` hold keyed digests (issue 20 §1); a look-up by token digests it with
 * `key` first. A row still in plaintext (written by an older release, before the credential migration ran) is read
 * and found all the same (sqlite-credential-migration.ts).
 */
export function createSqliteDeviceStore(db: Database, key: CredentialKey): DeviceStore {
  const toDevice = toDeviceWith(key);
  const insert = db.prepare(
    `INSERT INTO devices (deviceid, token, secret, alias, groupid, projectid, enabled, banned, description, livenessttl, created)
     VALUES (@deviceid, @token, @secret, @alias, @groupid, @projectid, @enabled, @banned, @description, @livenessttl, @created)`,
  );
  const replace = db.prepare(
    `UPDATE devices SET token = @token, secret = @secret, alias = @alias, groupid = @groupid, enabled = @enabled,
       banned = @banned, description = @description, livenessttl = @livenessttl
     WHERE deviceid = @deviceid`,
  );
  const byId = db.prepare('SELECT * FROM devices WHERE deviceid = ?');
  const byAlias = db.prepare('SELECT * FROM devices WHERE projectid = ? AND alias = ?');
  // Two rows at most: enough to tell one holder from a shared token (devices_by_token, sqlite-database.ts).
  const byToken = db.prepare('SELECT * FROM devices WHERE token = ? LIMIT 2');
  const holders = db.prepare('SELECT deviceid FROM devices WHERE token = ? LIMIT 2').pluck();
  const remove = db.prepare('DELETE FROM devices WHERE deviceid = ?');
  const list = db.prepare(
    `SELECT * FROM devices WHERE (@projectid IS NULL OR projectid = @projectid) AND (@groupid IS NULL OR groupid = @groupid)
     ORDER BY projectid, groupid, alias`,
  );

  return {
    async insertDevice(device) {
      try {
        insert.run(toRow(device));
      } catch (err) {
        translate(err, device);
      }
    },
    async getDevice(deviceid) {
      const row = byId.get(deviceid);
      return row === undefined ? undefined : toDevice(row);
    },
    async findDevicesByAlias(projectid, alias) {
      return byAlias.all(projectid, alias).map(toDevice);
    },
    async findDeviceByToken(token) {
      const rows = byToken.all(key.digest(token));
      const found = rows.length > 0 || !mayBeKeptPlaintext(token) ? rows : byToken.all(token);
      return found.length === 1 ? toDevice(found[0]) : undefined;
    },
    async tokenHolders(token) {
      const plain = mayBeKeptPlaintext(token) ? (holders.all(token) as string[]) : [];
      const ids = [...(holders.all(key.digest(token)) as string[]), ...plain];
      return [...new Set(ids)].slice(0, 2);
    },
    async listDevices(filter: DeviceFilter) {
      return list.all({ projectid: filter.projectid ?? null, groupid: filter.groupid ?? null }).map(toDevice);
    },
    async replaceDevice(device) {
      try {
        return replace.run(toRow(device)).changes === 1;
      } catch (err) {
        return translate(err, device);
      }
    },
    async deleteDevice(deviceid) {
      return remove.run(deviceid).changes === 1;
    },
  };
}

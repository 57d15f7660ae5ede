import { types } from 'cassandra-driver';
import * as t from 'io-ts';
import { AppError } from '../../core/errors';
import { CredentialKey } from '../../devices/credential-key';
import { isKeptDigest, mayBeKeptPlaintext } from '../../devices/credentials';
import { Device } from '../../devices/device';
import { DeviceFilter, DeviceStore } from '../../devices/port';
import { BigintNumber, decodeRow } from './cassandra-codecs';
import { CassandraConnection } from './cassandra-client';
import { translated } from './cassandra-errors';
import { createDeviceNames, DeviceName, holds, NameRow } from './cassandra-device-names';

const DeviceRow = t.type({
  deviceid: t.string,
  token: t.string,
  secret: t.string,
  alias: t.string,
  groupid: t.string,
  projectid: t.string,
  enabled: t.boolean,
  banned: t.boolean,
  description: t.string,
  livenessttl: t.number,
  created: BigintNumber,
});

/** `token` is a reserved word of CQL, hence quoted. */
const COLUMNS = 'deviceid, "token", secret, alias, groupid, projectid, enabled, banned, description, livenessttl, created';

export interface CassandraDeviceStoreOptions {
  now?: () => number;
  /** See cassandra-device-names.ts; a test makes it small to take over a claim left behind. */
  staleClaimAfterMs?: number;
}

/** Devices read at once by a listing. */
const LIST_CONCURRENCY = 32;
/** Tries of a replace that keeps losing to concurrent renames of the same device. */
const MAX_REPLACE_ATTEMPTS = 5;

const applied = (rs: types.ResultSet) => rs.first().get('[applied]') === true;
/** A conditional write on a row that does not exist answers with `[applied]` alone. */
const rowMissing = (rs: types.ResultSet) => rs.first().get('alias') == null;
const nameOf = (d: Pick<Device, 'projectid' | 'groupid' | 'alias'>): DeviceName => ({
  projectid: d.projectid,
  groupid: d.groupid,
  alias: d.alias,
});

/** Byte order of the UTF-8 encodings, the order SQLite's ORDER BY gives (and the contract suites check). */
const compareUtf8 = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
const byName = (a: NameRow, b: NameRow) =>
  compareUtf8(a.projectid, b.projectid) || compareUtf8(a.groupid, b.groupid) || compareUtf8(a.alias, b.alias);

async function mapConcurrently<A, B>(items: readonly A[], limit: number, fn: (item: A) => Promise<B>): Promise<B[]> {
  const out: B[] = new Array<B>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * The registry in Cassandra (cassandra-schema.ts): `devices` holds the records, `device_names` the aliases
 * (cassandra-device-names.ts), and each device's shadow partition is created and deleted with it. Every write is a
 * lightweight transaction, so that none of them races another on the same row.
 */
export function createCassandraDeviceStore(
  conn: CassandraConnection,
  key: CredentialKey,
  options: CassandraDeviceStoreOptions = {},
): DeviceStore {
  const { client, tables } = conn;
  // A row an older release wrote keeps its credentials in plaintext until the credential migration is completed
  // (cassandra-credential-migration.ts): the record holds their digests all the same.
  const keep = (kept: string) => (isKeptDigest(kept) ? kept : key.digest(kept));
  const toDevice = (row: types.Row): Device => {
    const d = decodeRow(DeviceRow, row);
    return { ...d, token: keep(d.token), secret: keep(d.secret) };
  };
  /** The rows holding a token: as its digest, else (rows of an older release) as it is. */
  async function rowsHoldingToken(query: string, token: string): Promise<types.Row[]> {
    const rows = (await client.execute(query, [key.digest(token)])).rows;
    if (rows.length > 0 || !mayBeKeptPlaintext(token)) return rows;
    return (await client.execute(query, [token])).rows;
  }
  const now = options.now ?? Date.now;
  const cql = {
    select: `SELECT ${COLUMNS} FROM ${tables.devices} WHERE deviceid = ?`,
    // Through the index devices_by_token (cassandra-schema.ts); two rows at most tell one holder from a shared token.
    selectByToken: `SELECT ${COLUMNS} FROM ${tables.devices} WHERE "token" = ? LIMIT 2`,
    tokenHolders: `SELECT deviceid FROM ${tables.devices} WHERE "token" = ? LIMIT 2`,
    insert: `INSERT INTO ${tables.devices} (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) IF NOT EXISTS`,
    // Conditional on the name read before, so that a rename never slips past the claims (see replaceDevice).
    replace: `UPDATE ${tables.devices} SET "token" = ?, secret = ?, alias = ?, groupid = ?, enabled = ?, banned = ?,
                description = ?, livenessttl = ? WHERE deviceid = ? IF alias = ? AND groupid = ?`,
    remove: `DELETE FROM ${tables.devices} WHERE deviceid = ? IF alias = ? AND groupid = ?`,
    // rev 0: a shadow never written, which writes can compare-and-set (cassandra-shadow-store.ts).
    createShadow: `INSERT INTO ${tables.shadows} (deviceid, rev, tail) VALUES (?, 0, minTimeuuid(0)) IF NOT EXISTS`,
    // The partition a deleted device left (rev null, its `tail` and outbox rows kept): its id is used again.
    reviveShadow: `UPDATE ${tables.shadows} SET rev = 0 WHERE deviceid = ? IF rev = null`,
    // The outbox rows and `tail` stay: points a write queued still go to the time-series store.
    removeShadow: `DELETE rev, data, modified, data_time FROM ${tables.shadows} WHERE deviceid = ? IF rev != null`,
    // The shadow's history goes with it: an id used again starts a history of its own.
    removeHistory: `DELETE FROM ${tables.shadowRevisions} WHERE deviceid = ?`,
    // The desired document goes too; a transaction, as its writes are: a plain delete could be hidden by their timestamps.
    removeDesired: `DELETE FROM ${tables.desired} WHERE deviceid = ? IF EXISTS`,
  };

  async function getRow(deviceid: string): Promise<types.Row | undefined> {
    return (await client.execute(cql.select, [deviceid])).first() ?? undefined;
  }

  async function getDevice(deviceid: string): Promise<Device | undefined> {
    const row = await getRow(deviceid);
    return row === undefined ? undefined : toDevice(row);
  }

  const names = createDeviceNames(conn, { getDevice, now, staleAfterMs: options.staleClaimAfterMs ?? 60_000 });

  /** Best effort: whatever this leaves behind is harmless (a stale claim, a shadow without its device). */
  const quietly = async (undo: () => Promise<unknown>) => {
    await undo().catch(() => undefined);
  };

  /** The claims' devices that still hold them, in the claims' order. */
  async function devicesHolding(claims: readonly NameRow[]): Promise<Device[]> {
    const devices = await mapConcurrently(claims, LIST_CONCURRENCY, (claim) => getDevice(claim.deviceid));
    return devices.filter((d, i): d is Device => d !== undefined && holds(d, claims[i]));
  }

  return {
    /**
     * The name is claimed, then the shadow partition (a live one means the id is in use: both conditional, so of two
     * writers of one id one wins), then the record.
     */
    insertDevice: translated('register device', async (device: Device) => {
      const inUse = new AppError('DEVICE_ID_TAKEN', `device id ${device.deviceid} is already in use`);
      if (await getDevice(device.deviceid)) throw inUse;
      const name = nameOf(device);
      const owner = await names.claim(name, device.deviceid);
      let shadowMade = false;
      try {
        shadowMade = applied(await client.execute(cql.createShadow, [device.deviceid])) ||
          applied(await client.execute(cql.reviveShadow, [device.deviceid]));
        if (!shadowMade) throw inUse;
        const values = [device.deviceid, device.token, device.secret, device.alias, device.groupid, device.projectid,
          device.enabled, device.banned, device.description, device.livenessttl, types.Long.fromNumber(device.created)];
        if (!applied(await client.execute(cql.insert, values))) throw inUse;
      } catch (err) {
        // A live shadow left without its record would keep the id taken for good (ids can be given, and reused).
        if (shadowMade) await quietly(() => client.execute(cql.removeShadow, [device.deviceid]));
        await quietly(() => names.release(name, owner));
        throw err;
      }
    }),

    getDevice: translated('read device', getDevice),

    /**
     * While Cassandra still builds the index (its first start on an existing registry) the look-up fails, as the
     * registry being unavailable: the client is told to try again later.
     */
    findDeviceByToken: translated('find device by token', async (token: string) => {
      const rows = await rowsHoldingToken(cql.selectByToken, token);
      return rows.length === 1 ? toDevice(rows[0]) : undefined;
    }),

    tokenHolders: translated('find token holders', async (token: string) => {
      const digested = (await client.execute(cql.tokenHolders, [key.digest(token)])).rows;
      const plain = mayBeKeptPlaintext(token) ? (await client.execute(cql.tokenHolders, [token])).rows : [];
      return [...new Set([...digested, ...plain].map((row) => String(row.get('deviceid'))))].slice(0, 2);
    }),

    findDevicesByAlias: translated('find devices by alias', async (projectid: string, alias: string) => {
      const claims = (await names.byAlias(projectid, alias)).sort(byName);
      return devicesHolding(claims);
    }),

    listDevices: translated('list devices', async (filter: DeviceFilter) => {
      const claims = (await names.list(filter.projectid))
        .filter((c) => filter.groupid === undefined || c.groupid === filter.groupid)
        .sort(byName);
      return devicesHolding(claims);
    }),

    /**
     * A rename claims the new name, then changes the record if it still has the name read before, then releases the
     * old name; a concurrent rename of the same device makes the condition fail, and the whole is tried again.
     */
    replaceDevice: translated('update device', async (device: Device) => {
      for (let attempt = 0; attempt < MAX_REPLACE_ATTEMPTS; attempt++) {
        const currentRow = await getRow(device.deviceid);
        if (currentRow === undefined) return false;
        const current = toDevice(currentRow);
        const before = nameOf(current);
        // A credential that does not change is written back as stored: a plaintext row of an older release stays one,
        // so the older nodes of a rolling upgrade still accept it (docs/production.md "Rolling upgrades").
        const stored = (which: 'token' | 'secret') =>
          device[which] === current[which] ? String(currentRow.get(which)) : device[which];
        // The project never changes (the SQLite adapter does not update it either).
        const after = nameOf({ ...device, projectid: current.projectid });
        const renamed = before.groupid !== after.groupid || before.alias !== after.alias;
        const oldOwner = renamed ? await names.ownerOf(before, device.deviceid) : undefined;
        const newOwner = renamed ? await names.claim(after, device.deviceid) : undefined;
        const params = [stored('token'), stored('secret'), after.alias, after.groupid, device.enabled, device.banned,
          device.description, device.livenessttl, device.deviceid, before.alias, before.groupid];
        let result: types.ResultSet;
        try {
          result = await client.execute(cql.replace, params);
        } catch (err) {
          if (newOwner) await quietly(() => names.release(after, newOwner));
          throw err;
        }
        if (applied(result)) {
          if (oldOwner) await quietly(() => names.release(before, oldOwner));
          return true;
        }
        if (newOwner) await quietly(() => names.release(after, newOwner));
        if (rowMissing(result)) return false;
      }
      throw new Error(`device ${device.deviceid}: too many concurrent updates`);
    }),

    /** The record first, then the shadow, then the name: an interruption leaves only harmless leftovers. */
    deleteDevice: translated('delete device', async (deviceid: string) => {
      for (let attempt = 0; attempt < MAX_REPLACE_ATTEMPTS; attempt++) {
        const current = await getDevice(deviceid);
        if (current === undefined) return false;
        const name = nameOf(current);
        const owner = await names.ownerOf(name, deviceid);
        const result = await client.execute(cql.remove, [deviceid, name.alias, name.groupid]);
        if (!applied(result)) {
          if (rowMissing(result)) return false;
          continue;
        }
        await client.execute(cql.removeShadow, [deviceid]);
        await client.execute(cql.removeHistory, [deviceid]);
        await client.execute(cql.removeDesired, [deviceid]);
        if (owner) await quietly(() => names.release(name, owner));
        return true;
      }
      throw new Error(`device ${deviceid}: too many concurrent updates`);
    }),
  };
}

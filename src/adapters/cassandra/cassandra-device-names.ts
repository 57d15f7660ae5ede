import { types } from 'cassandra-driver';
import * as t from 'io-ts';
import { Device } from '../../devices/device';
import { AppError } from '../../core/errors';
import { BigintNumber, decodeRow, UuidCodec } from './cassandra-codecs';
import { CassandraConnection } from './cassandra-client';

/** An alias in one group of one project: what must be unique. */
export interface DeviceName {
  readonly projectid: string;
  readonly groupid: string;
  readonly alias: string;
}

const Holder = t.type({ deviceid: t.string, owner: UuidCodec, claimed: BigintNumber });
const NameRow = t.type({ projectid: t.string, alias: t.string, groupid: t.string, deviceid: t.string });
export type NameRow = t.TypeOf<typeof NameRow>;

export const holds = (device: Device, name: DeviceName) =>
  device.projectid === name.projectid && device.groupid === name.groupid && device.alias === name.alias;

export interface DeviceNamesOptions {
  /** Reads a device, to tell a stale claim from a live one. */
  getDevice(deviceid: string): Promise<Device | undefined>;
  now: () => number;
  /** How old a claim must be before a device that does not hold the name loses it (see below), in ms. */
  staleAfterMs: number;
}

/**
 * The claims on device names (table `device_names`), which keep an alias unique in its group.
 *
 * Registering or renaming a device touches two partitions, the name's and the device's, and Cassandra has no
 * transaction across partitions. So the name is claimed first, with a lightweight transaction (INSERT ... IF NOT
 * EXISTS: of two writers, one wins), the device is written next, and a name the device gives up is released last,
 * again conditionally (DELETE ... IF owner = ?). Whatever fails in between, a name is never held by two devices;
 * the worst left behind is a claim nobody uses. Readers therefore trust a claim only when the device it names holds
 * that name too (see `holds`), and a claim older than `staleAfterMs` whose device does not hold the name may be
 * taken over. Each claim carries an `owner` token, new at every claim: a takeover or release applies only if the
 * owner is still the one seen, so a device that re-claims its name in the meantime always keeps it. The one
 * assumption: an operation on a device finishes within `staleAfterMs` (it is made of a few statements, each with a
 * driver timeout of seconds).
 */
export function createDeviceNames(conn: CassandraConnection, options: DeviceNamesOptions) {
  const { client, tables } = conn;
  const key = 'projectid = ? AND alias = ? AND groupid = ?';
  const keyOf = (n: DeviceName) => [n.projectid, n.alias, n.groupid];
  const cql = {
    insert: `INSERT INTO ${tables.names} (projectid, alias, groupid, deviceid, owner, claimed) VALUES (?, ?, ?, ?, ?, ?) IF NOT EXISTS`,
    takeOver: `UPDATE ${tables.names} SET deviceid = ?, owner = ?, claimed = ? WHERE ${key} IF owner = ?`,
    release: `DELETE FROM ${tables.names} WHERE ${key} IF owner = ?`,
    holder: `SELECT deviceid, owner, claimed FROM ${tables.names} WHERE ${key}`,
    byAlias: `SELECT projectid, alias, groupid, deviceid FROM ${tables.names} WHERE projectid = ? AND alias = ?`,
    byProject: `SELECT projectid, alias, groupid, deviceid FROM ${tables.names} WHERE projectid = ?`,
    all: `SELECT projectid, alias, groupid, deviceid FROM ${tables.names}`,
  };

  const taken = (name: DeviceName) =>
    new AppError('ALIAS_TAKEN', `alias "${name.alias}" is already used in group ${name.groupid}`);

  async function isStale(name: DeviceName, holder: t.TypeOf<typeof Holder>): Promise<boolean> {
    if (options.now() - holder.claimed < options.staleAfterMs) return false;
    const device = await options.getDevice(holder.deviceid);
    return device === undefined || !holds(device, name);
  }

  async function rowsOf(query: string, params: unknown[]): Promise<NameRow[]> {
    const rows: NameRow[] = [];
    for await (const row of await client.execute(query, params, { fetchSize: 1000 })) rows.push(decodeRow(NameRow, row));
    return rows;
  }

  return {
    /**
     * Claims `name` for `deviceid` and returns the claim's owner token; throws AppError('ALIAS_TAKEN') when another
     * device holds it. A device re-claiming its own name gets a new token (see above).
     */
    async claim(name: DeviceName, deviceid: string): Promise<types.Uuid> {
      // A second look only when the claim changed hands between our two statements.
      for (let attempt = 0; attempt < 3; attempt++) {
        const owner = types.Uuid.random();
        const inserted = await client.execute(cql.insert, [...keyOf(name), deviceid, owner, types.Long.fromNumber(options.now())]);
        if (inserted.first().get('[applied]') === true) return owner;
        const holder = decodeRow(Holder, inserted.first());
        if (holder.deviceid !== deviceid && !(await isStale(name, holder))) throw taken(name);
        const params = [deviceid, owner, types.Long.fromNumber(options.now()), ...keyOf(name), holder.owner];
        if ((await client.execute(cql.takeOver, params)).first().get('[applied]') === true) return owner;
      }
      throw taken(name);
    },

    /** Gives the name up, unless it was claimed again since `owner` was seen. */
    async release(name: DeviceName, owner: types.Uuid): Promise<void> {
      await client.execute(cql.release, [...keyOf(name), owner]);
    },

    /** The claim on `name` when `deviceid` holds it, to release it later with `release`. */
    async ownerOf(name: DeviceName, deviceid: string): Promise<types.Uuid | undefined> {
      const row = (await client.execute(cql.holder, keyOf(name))).first();
      if (row === null) return undefined;
      const holder = decodeRow(Holder, row);
      return holder.deviceid === deviceid ? holder.owner : undefined;
    },

    /** The claims on `alias` in every group of the project. */
    byAlias: (projectid: string, alias: string) => rowsOf(cql.byAlias, [projectid, alias]),

    /** Every claim of a project, or of every project (a scan of the whole table: the admin listing of everything). */
    list: (projectid: string | undefined) => (projectid === undefined ? rowsOf(cql.all, []) : rowsOf(cql.byProject, [projectid])),
  };
}

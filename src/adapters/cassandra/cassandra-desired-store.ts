import * as t from 'io-ts';
import { isJsonObject } from '../../core/json';
import { DesiredStore } from '../../desired/port';
import { BigintNumber, decodeRow } from './cassandra-codecs';
import { CassandraConnection } from './cassandra-client';
import { translated } from './cassandra-errors';

const DesiredRow = t.type({ data: t.string, rev: BigintNumber, modified: BigintNumber });

/**
 * Desired documents in table `desired` (cassandra-schema.ts), one row per device. A write is a lightweight
 * transaction on the row: INSERT ... IF NOT EXISTS for the first, UPDATE ... IF rev = ? after, so that concurrent
 * writers through any node never lose each other's changes. A write whose outcome is unknown (a timeout) is answered
 * as an error, though it may have been applied: the next read tells. The device store deletes the row with the device.
 */
export function createCassandraDesiredStore({ client, tables }: CassandraConnection): DesiredStore {
  const cql = {
    select: `SELECT data, rev, modified FROM ${tables.desired} WHERE deviceid = ?`,
    insert: `INSERT INTO ${tables.desired} (deviceid, data, rev, modified) VALUES (?, ?, ?, ?) IF NOT EXISTS`,
    update: `UPDATE ${tables.desired} SET data = ?, rev = ?, modified = ? WHERE deviceid = ? IF rev = ?`,
  };
  const applied = (result: { first(): { get(name: string): unknown } | null }) => result.first()?.get('[applied]') === true;
  return {
    readDesired: translated('read desired state', async (deviceid: string) => {
      const row = (await client.execute(cql.select, [deviceid], { prepare: true })).first();
      if (row === null) return undefined;
      const { data, rev, modified } = decodeRow(DesiredRow, { data: row.get('data'), rev: row.get('rev'), modified: row.get('modified') });
      const desired: unknown = JSON.parse(data);
      if (!isJsonObject(desired)) throw new Error(`desired document of ${deviceid} is not a JSON object`);
      return { deviceid, desired, rev, modified };
    }),
    commitDesired: translated('store desired state', async (next, expectedRev: number) => {
      const data = JSON.stringify(next.desired);
      const result = expectedRev === 0
        ? await client.execute(cql.insert, [next.deviceid, data, BigintNumber.encode(next.rev), BigintNumber.encode(next.modified)], { prepare: true })
        : await client.execute(cql.update, [data, BigintNumber.encode(next.rev), BigintNumber.encode(next.modified), next.deviceid, BigintNumber.encode(expectedRev)], { prepare: true });
      return applied(result);
    }),
  };
}

import * as t from 'io-ts';
import { EventHook, StoredEventHook, TriggerList } from '../../triggers/codecs';
import { TriggerStore } from '../../triggers/port';
import { decodeRow } from './cassandra-codecs';
import { CassandraConnection } from './cassandra-client';
import { translated } from './cassandra-errors';

const BodyRow = t.type({ body: t.string });
const HookRow = t.type({ name: t.string, body: t.string });

const bodyOf = <A>(codec: t.Type<A, unknown, unknown>, row: unknown): A => decodeRow(codec, JSON.parse(decodeRow(BodyRow, row).body));

/**
 * Triggers (table `triggers`, one row per device) and event hooks (`event_hooks`, one partition per project, rows
 * in name order: a listing is one partition read, sorted as SQLite's ORDER BY name). Plain writes only, as for
 * schemas (cassandra-schema-store.ts).
 */
export function createCassandraTriggerStore({ client, tables }: CassandraConnection): TriggerStore {
  const cql = {
    selectTriggers: `SELECT body FROM ${tables.triggers} WHERE deviceid = ?`,
    upsertTriggers: `INSERT INTO ${tables.triggers} (deviceid, body) VALUES (?, ?)`,
    removeTriggers: `DELETE FROM ${tables.triggers} WHERE deviceid = ?`,
    selectHook: `SELECT body FROM ${tables.hooks} WHERE projectid = ? AND name = ?`,
    selectHooks: `SELECT name, body FROM ${tables.hooks} WHERE projectid = ?`,
    upsertHook: `INSERT INTO ${tables.hooks} (projectid, name, body) VALUES (?, ?, ?)`,
    removeHook: `DELETE FROM ${tables.hooks} WHERE projectid = ? AND name = ?`,
  };
  const first = async (query: string, params: unknown[]) => (await client.execute(query, params)).first();

  return {
    getTriggers: translated('read triggers', async (deviceid: string) => {
      const row = await first(cql.selectTriggers, [deviceid]);
      return row === null ? undefined : bodyOf(TriggerList, row);
    }),
    putTriggers: translated('store triggers', async (deviceid: string, list: TriggerList) => {
      await client.execute(cql.upsertTriggers, [deviceid, JSON.stringify(list)]);
    }),
    deleteTriggers: translated('delete triggers', async (deviceid: string) => {
      const existed = (await first(cql.selectTriggers, [deviceid])) !== null;
      await client.execute(cql.removeTriggers, [deviceid]);
      return existed;
    }),
    getHook: translated('read event hook', async (projectid: string, name: string) => {
      const row = await first(cql.selectHook, [projectid, name]);
      return row === null ? undefined : bodyOf(StoredEventHook, row);
    }),
    listHooks: translated('list event hooks', async (projectid: string) => {
      const hooks: { name: string; hook: EventHook }[] = [];
      for await (const raw of await client.execute(cql.selectHooks, [projectid], { fetchSize: 500 })) {
        const row = decodeRow(HookRow, raw);
        hooks.push({ name: row.name, hook: decodeRow(StoredEventHook, JSON.parse(row.body)) });
      }
      return hooks;
    }),
    putHook: translated('store event hook', async (projectid: string, name: string, hook: EventHook) => {
      await client.execute(cql.upsertHook, [projectid, name, JSON.stringify(hook)]);
    }),
    deleteHook: translated('delete event hook', async (projectid: string, name: string) => {
      const existed = (await first(cql.selectHook, [projectid, name])) !== null;
      await client.execute(cql.removeHook, [projectid, name]);
      return existed;
    }),
  };
}

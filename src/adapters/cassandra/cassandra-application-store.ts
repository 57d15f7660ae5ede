import { types } from 'cassandra-driver';
import * as t from 'io-ts';
import { Application } from '../../applications/application';
import { ApplicationGroups } from '../../applications/codecs';
import { ApplicationChanges, ApplicationStore } from '../../applications/port';
import { BigintNumber, decodeRow } from './cassandra-codecs';
import { CassandraConnection } from './cassandra-client';
import { translateCassandraError } from './cassandra-errors';

const ApplicationRow = t.type({
  app_key: t.string, name: t.string, projectid: t.string, group_ids: t.string, enabled: t.boolean, secret: t.string, created: BigintNumber,
});

const applicationOf = (raw: unknown): Application => {
  const row = decodeRow(ApplicationRow, raw);
  const groups = decodeRow(ApplicationGroups, JSON.parse(row.group_ids));
  return { key: row.app_key, name: row.name, projectid: row.projectid, groups, enabled: row.enabled, secret: row.secret, created: row.created };
};

/** Project, then creation time, then key: the order of the SQLite adapter (a partition per key has no order of its own). */
const byProjectThenAge = (a: Application, b: Application) =>
  (a.projectid < b.projectid ? -1 : a.projectid > b.projectid ? 1 : 0) || a.created - b.created || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/** The columns an update may set, by member (port.ts ApplicationChanges), with how each is stored. */
const COLUMNS: { [K in keyof Required<ApplicationChanges>]: { column: string; value: (v: Required<ApplicationChanges>[K]) => unknown } } = {
  name: { column: 'name', value: (v) => v },
  groups: { column: 'group_ids', value: (v) => JSON.stringify(v) },
  enabled: { column: 'enabled', value: (v) => v },
  secret: { column: 'secret', value: (v) => v },
};

const COLUMN_LIST = 'app_key, name, projectid, group_ids, enabled, secret, created';

/**
 * Application keys in table `applications` (cassandra-schema.ts), one row each, read at every log-in with the key (no
 * cache: a revocation or rotation holds at once on every node). Every write is a lightweight transaction (a key is
 * taken once; an update or deletion answers whether the key existed, and never brings a deleted one back as a
 * partial row), so no plain write can hide behind a transaction's timestamp.
 */
export function createCassandraApplicationStore({ client, tables }: CassandraConnection): ApplicationStore {
  const cql = {
    insert: `INSERT INTO ${tables.applications} (${COLUMN_LIST}) VALUES (?, ?, ?, ?, ?, ?, ?) IF NOT EXISTS`,
    select: `SELECT ${COLUMN_LIST} FROM ${tables.applications} WHERE app_key = ?`,
    ofProject: `SELECT ${COLUMN_LIST} FROM ${tables.applications} WHERE projectid = ?`,
    all: `SELECT ${COLUMN_LIST} FROM ${tables.applications}`,
    remove: `DELETE FROM ${tables.applications} WHERE app_key = ? IF EXISTS`,
  };
  const run = async <A>(what: string, work: () => Promise<A>): Promise<A> => {
    try {
      return await work();
    } catch (err) {
      throw translateCassandraError(err, what);
    }
  };
  const get = (key: string) => run('read application key', async () => {
    const row = (await client.execute(cql.select, [key])).first();
    return row === null ? undefined : applicationOf(row);
  });
  return {
    get,
    // Keys are few (a handful per project): read whole and sorted here.
    list: ({ projectid }) => run('list application keys', async () => {
      const rs = projectid === undefined ? await client.execute(cql.all) : await client.execute(cql.ofProject, [projectid]);
      return rs.rows.map(applicationOf).sort(byProjectThenAge);
    }),
    insert: (a) => run('store application key', async () => (await client.execute(cql.insert, [
      a.key, a.name, a.projectid, JSON.stringify(a.groups), a.enabled, a.secret, types.Long.fromNumber(a.created),
    ])).wasApplied()),
    async update(key, changes) {
      const set = (Object.keys(COLUMNS) as (keyof ApplicationChanges)[]).filter((member) => changes[member] !== undefined);
      if (set.length === 0) return (await get(key)) !== undefined;
      // Column names come from COLUMNS alone, never from the caller.
      const statement = `UPDATE ${tables.applications} SET ${set.map((m) => `${COLUMNS[m].column} = ?`).join(', ')} WHERE app_key = ? IF EXISTS`;
      const values = set.map((m) => (COLUMNS[m].value as (v: unknown) => unknown)(changes[m]));
      return run('update application key', async () => (await client.execute(statement, [...values, key])).wasApplied());
    },
    delete: (key) => run('delete application key', async () => (await client.execute(cql.remove, [key])).wasApplied()),
  };
}

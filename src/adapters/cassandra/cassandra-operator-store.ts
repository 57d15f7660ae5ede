import { types } from 'cassandra-driver';
import * as t from 'io-ts';
import { OperatorRecord, ProjectScope, Role } from '../../operators/codecs';
import { OperatorStore } from '../../operators/port';
import { BigintNumber, decodeRow } from './cassandra-codecs';
import { CassandraConnection } from './cassandra-client';
import { translateCassandraError } from './cassandra-errors';

const OperatorRow = t.type({ name: t.string, role: Role, projects: t.string, created: BigintNumber, key_digest: t.string });

const recordOf = (raw: unknown): OperatorRecord => {
  const row = decodeRow(OperatorRow, raw);
  return { name: row.name, role: row.role, projects: decodeRow(ProjectScope, JSON.parse(row.projects)), created: row.created, keyDigest: row.key_digest };
};

const applied = (rs: types.ResultSet) => rs.wasApplied();

/**
 * Operators in table `operators` (cassandra-schema.ts), one row each, read at every admin call with an operator key
 * (no cache: a deleted operator or a rotated key is refused on every node at once). Every write is a lightweight
 * transaction (a name is taken once; a rotation or deletion answers whether the operator existed), so no plain write
 * can hide behind a transaction's timestamp.
 */
export function createCassandraOperatorStore({ client, tables }: CassandraConnection): OperatorStore {
  const cql = {
    insert: `INSERT INTO ${tables.operators} (name, role, projects, created, key_digest) VALUES (?, ?, ?, ?, ?) IF NOT EXISTS`,
    select: `SELECT name, role, projects, created, key_digest FROM ${tables.operators} WHERE name = ?`,
    all: `SELECT name, role, projects, created, key_digest FROM ${tables.operators}`,
    setKey: `UPDATE ${tables.operators} SET key_digest = ? WHERE name = ? IF EXISTS`,
    remove: `DELETE FROM ${tables.operators} WHERE name = ? IF EXISTS`,
  };
  const run = async <A>(what: string, work: () => Promise<A>): Promise<A> => {
    try {
      return await work();
    } catch (err) {
      throw translateCassandraError(err, what);
    }
  };
  return {
    insert: (o) => run('store operator', async () =>
      applied(await client.execute(cql.insert, [o.name, o.role, JSON.stringify(o.projects), types.Long.fromNumber(o.created), o.keyDigest]))),
    get: (name) => run('read operator', async () => {
      const row = (await client.execute(cql.select, [name])).first();
      return row === null ? undefined : recordOf(row);
    }),
    // A handful of rows: read whole and sorted here (a partition per operator has no order of its own).
    list: () => run('list operators', async () =>
      (await client.execute(cql.all)).rows.map(recordOf).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))),
    setKeyDigest: (name, keyDigest) => run('rotate operator key', async () => applied(await client.execute(cql.setKey, [keyDigest, name]))),
    remove: (name) => run('delete operator', async () => applied(await client.execute(cql.remove, [name]))),
  };
}

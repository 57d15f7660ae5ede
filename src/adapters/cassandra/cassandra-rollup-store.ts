import * as t from 'io-ts';
import { types } from 'cassandra-driver';
import { RollupStore } from '../../timeseries/rollups/port';
import { tiersFromText, tiersToText } from '../../timeseries/rollups/stored-tiers';
import { BigintNumber, decodeRow, nullable } from './cassandra-codecs';
import { CassandraConnection } from './cassandra-client';
import { translateCassandraError } from './cassandra-errors';

const RollupRow = t.type({ tiers: t.string, declared_at: BigintNumber, built_at: nullable(BigintNumber) });
const ProjectRow = t.type({ projectid: t.string, built_at: nullable(BigintNumber) });

const long = (n: number) => types.Long.fromNumber(n);

/** Projects' roll-up declarations in table `rollups` (cassandra-schema.ts); nodes read them through a cache. */
export function createCassandraRollupStore({ client, tables }: CassandraConnection): RollupStore {
  const cql = {
    select: `SELECT tiers, declared_at, built_at FROM ${tables.rollups} WHERE projectid = ?`,
    upsert: `INSERT INTO ${tables.rollups} (projectid, tiers, declared_at, built_at) VALUES (?, ?, ?, ?)`,
    // Compare-and-set: a build finished for a declaration replaced meanwhile must not mark the new one built.
    built: `UPDATE ${tables.rollups} SET built_at = ? WHERE projectid = ? IF declared_at = ?`,
    remove: `DELETE FROM ${tables.rollups} WHERE projectid = ?`,
    // A small table (one row per project with roll-ups), read whole once at start.
    all: `SELECT projectid, built_at FROM ${tables.rollups}`,
  };
  const read = async (projectid: string) => {
    const row = (await client.execute(cql.select, [projectid], { prepare: true })).first();
    if (row === null) return undefined;
    const { tiers, declared_at: declaredAt, built_at: builtAt } = decodeRow(RollupRow, row);
    return { tiers: tiersFromText(tiers), declaredAt, builtAt: builtAt ?? undefined };
  };
  const translated = async <R>(what: string, work: () => Promise<R>): Promise<R> => {
    try {
      return await work();
    } catch (err) {
      throw translateCassandraError(err, what);
    }
  };
  return {
    getRollups: (projectid) => translated('read roll-ups', () => read(projectid)),
    putRollups: (projectid, { tiers, declaredAt, builtAt }) => translated('store roll-ups', async () => {
      await client.execute(cql.upsert, [projectid, tiersToText(tiers), long(declaredAt), builtAt === undefined ? null : long(builtAt)], { prepare: true });
    }),
    markBuilt: (projectid, declaredAt, builtAt) => translated('store roll-ups', async () =>
      (await client.execute(cql.built, [long(builtAt), projectid, long(declaredAt)], { prepare: true })).wasApplied()),
    deleteRollups: (projectid) => translated('delete roll-ups', async () => {
      // Read first to answer whether there was one, rather than `IF EXISTS` (see cassandra-schema-store.ts).
      const existed = (await read(projectid)) !== undefined;
      await client.execute(cql.remove, [projectid], { prepare: true });
      return existed;
    }),
    listUnbuilt: () => translated('read roll-ups', async () => {
      const rows = (await client.execute(cql.all, [], { prepare: true })).rows.map((row) => decodeRow(ProjectRow, row));
      return rows.filter((row) => row.built_at === null || row.built_at === undefined).map((row) => row.projectid).sort();
    }),
  };
}

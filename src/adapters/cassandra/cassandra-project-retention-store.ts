import * as t from 'io-ts';
import { types } from 'cassandra-driver';
import { ProjectRetentionStore } from '../../timeseries/project-retention';
import { BigintNumber, decodeRow } from './cassandra-codecs';
import { CassandraConnection } from './cassandra-client';
import { translateCassandraError } from './cassandra-errors';

const RetentionRow = t.type({ retention_ms: BigintNumber });

/** Projects' own retention in table `project_retention` (cassandra-schema.ts); nodes read it through a cache. */
export function createCassandraProjectRetentionStore({ client, tables }: CassandraConnection): ProjectRetentionStore {
  const cql = {
    select: `SELECT retention_ms FROM ${tables.projectRetention} WHERE projectid = ?`,
    upsert: `INSERT INTO ${tables.projectRetention} (projectid, retention_ms) VALUES (?, ?)`,
    remove: `DELETE FROM ${tables.projectRetention} WHERE projectid = ?`,
  };
  const read = async (projectid: string) => {
    const row = (await client.execute(cql.select, [projectid], { prepare: true })).first();
    return row === null ? undefined : decodeRow(RetentionRow, row).retention_ms;
  };
  return {
    async getRetention(projectid) {
      try {
        return await read(projectid);
      } catch (err) {
        throw translateCassandraError(err, 'read project retention');
      }
    },
    async putRetention(projectid, retentionMs) {
      try {
        await client.execute(cql.upsert, [projectid, types.Long.fromNumber(retentionMs)], { prepare: true });
      } catch (err) {
        throw translateCassandraError(err, 'store project retention');
      }
    },
    async deleteRetention(projectid) {
      try {
        // Read first to answer whether there was one, rather than `IF EXISTS` (see cassandra-schema-store.ts).
        const existed = (await read(projectid)) !== undefined;
        await client.execute(cql.remove, [projectid], { prepare: true });
        return existed;
      } catch (err) {
        throw translateCassandraError(err, 'delete project retention');
      }
    },
  };
}

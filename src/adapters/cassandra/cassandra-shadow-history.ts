import { types } from 'cassandra-driver';
import * as t from 'io-ts';
import { AppError } from '../../core/errors';
import { isJsonObject } from '../../core/json';
import { RevisionToKeep, ShadowHistory, upperKeyOf } from '../../shadows/history';
import { Shadow } from '../../shadows/shadow';
import { CassandraConnection } from './cassandra-client';
import { BigintNumber, decodeRow } from './cassandra-codecs';
import { translated } from './cassandra-errors';

const RevisionRow = t.type({ rev: BigintNumber, modified: BigintNumber, data_time: BigintNumber, data: t.string });

/** Cassandra's largest TTL (20 years): a longer retention is kept that long. */
const MAX_TTL_SECONDS = 630_720_000;

const long = types.Long.fromNumber;

function toShadow(deviceid: string, row: types.Row): Shadow {
  const r = decodeRow(RevisionRow, row);
  const data: unknown = JSON.parse(r.data);
  if (!isJsonObject(data)) throw new AppError('INTERNAL', `shadow ${deviceid} rev ${r.rev}: stored data is not an object`);
  return { deviceid, data, rev: r.rev, modified: r.modified, timestamp: r.data_time };
}

/**
 * Reads the history in `shadow_revisions` (cassandra-schema.ts), one partition per device, newest first. Rows expire
 * by their TTL, so `now` is not needed to leave them out.
 */
export function createCassandraShadowHistory({ client, tables }: CassandraConnection): ShadowHistory {
  const columns = 'rev, modified, data_time, data';
  const cql = {
    at: `SELECT ${columns} FROM ${tables.shadowRevisions} WHERE deviceid = ? AND modified <= ? LIMIT 1`,
    oldest: `SELECT ${columns} FROM ${tables.shadowRevisions} WHERE deviceid = ? ORDER BY modified ASC, rev ASC LIMIT 1`,
    page: `SELECT ${columns} FROM ${tables.shadowRevisions}
           WHERE deviceid = ? AND (modified, rev) >= (?, ?) AND (modified, rev) <= (?, ?) LIMIT ?`,
  };
  async function first(query: string, params: unknown[]): Promise<Shadow | undefined> {
    const row = (await client.execute(query, params)).first();
    return row === null ? undefined : toShadow(String(params[0]), row);
  }
  return {
    revisionAt: translated('read shadow history', (deviceid: string, at: number) => first(cql.at, [deviceid, long(at)])),
    oldestRevision: translated('read shadow history', (deviceid: string) => first(cql.oldest, [deviceid])),
    listRevisions: translated('read shadow history', async (deviceid: string, range: Parameters<ShadowHistory['listRevisions']>[1]) => {
      const upper = upperKeyOf(range);
      const params = [deviceid, long(range.from), long(0), long(upper.modified), long(upper.rev), range.limit];
      const result = await client.execute(cql.page, params, { fetchSize: range.limit });
      return result.rows.map((row) => toShadow(deviceid, row));
    }),
  };
}

/**
 * Writes a commit's revisions once its lightweight transaction has applied: Cassandra runs one only within a
 * partition, and the history is a partition of its own. Keyed by (deviceid, modified, rev), so writing them again is
 * harmless. A revision already expired is not written.
 */
export function revisionWriter({ client, tables }: CassandraConnection) {
  const insert = `INSERT INTO ${tables.shadowRevisions} (deviceid, modified, rev, data_time, data) VALUES (?, ?, ?, ?, ?) USING TTL ?`;
  return async (deviceid: string, revisions: readonly RevisionToKeep[], now: number): Promise<void> => {
    const queries = revisions.flatMap(({ shadow, expiresAt }) => {
      const ttl = expiresAt === undefined ? 0 : Math.min(MAX_TTL_SECONDS, Math.ceil((expiresAt - now) / 1000));
      if (expiresAt !== undefined && ttl <= 0) return [];
      const params = [deviceid, long(shadow.modified), long(shadow.rev), long(shadow.timestamp), JSON.stringify(shadow.data), ttl];
      return [{ query: insert, params }];
    });
    if (queries.length === 0) return;
    // One partition: an unlogged batch is one mutation.
    if (queries.length === 1) await client.execute(queries[0].query, queries[0].params);
    else await client.batch(queries, { logged: false });
  };
}

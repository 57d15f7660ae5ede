import * as t from 'io-ts';
import { Datatag, StoredDatatag } from '../../datatags/codecs';
import { DatatagStore, ownerKeyOf } from '../../datatags/port';
import { decodeRow } from './cassandra-codecs';
import { CassandraConnection } from './cassandra-client';
import { translateCassandraError } from './cassandra-errors';

const TagRow = t.type({ attr: t.string, body: t.string });

/**
 * Datatags in table `datatags` (cassandra-schema.ts): one partition per owner, one row per attr; nodes read them
 * through a cache (src/cluster). Plain writes only, as for schemas. A replace writes the new list's rows, then deletes
 * those of the attrs it drops, each on its own: one batch of up to 100 tags could pass Cassandra's batch size limit
 * (50 KiB by default); a reader during the replace may see some of both lists, never a tag half written.
 */
export function createCassandraDatatagStore({ client, tables }: CassandraConnection): DatatagStore {
  const cql = {
    list: `SELECT attr, body FROM ${tables.datatags} WHERE owner = ?`,
    upsert: `INSERT INTO ${tables.datatags} (owner, attr, body) VALUES (?, ?, ?)`,
    exists: `SELECT attr FROM ${tables.datatags} WHERE owner = ? AND attr = ?`,
    remove: `DELETE FROM ${tables.datatags} WHERE owner = ? AND attr = ?`,
  };

  async function rowsOf(key: string) {
    return (await client.execute(cql.list, [key])).rows.map((row) => decodeRow(TagRow, row));
  }

  return {
    async listDatatags(owner) {
      try {
        // Rows come ordered by attr, the clustering column.
        return (await rowsOf(ownerKeyOf(owner))).map((row): Datatag => decodeRow(StoredDatatag, JSON.parse(row.body)));
      } catch (err) {
        throw translateCassandraError(err, 'read datatags');
      }
    },
    async replaceDatatags(owner, tags) {
      const key = ownerKeyOf(owner);
      try {
        const kept = new Set(tags.map((tag) => tag.attr));
        const dropped = (await rowsOf(key)).filter((row) => !kept.has(row.attr));
        await Promise.all(tags.map((tag) => client.execute(cql.upsert, [key, tag.attr, JSON.stringify(tag)])));
        await Promise.all(dropped.map((row) => client.execute(cql.remove, [key, row.attr])));
      } catch (err) {
        throw translateCassandraError(err, 'store datatags');
      }
    },
    async putDatatag(owner, tag) {
      try {
        await client.execute(cql.upsert, [ownerKeyOf(owner), tag.attr, JSON.stringify(tag)]);
      } catch (err) {
        throw translateCassandraError(err, 'store datatag');
      }
    },
    async deleteDatatag(owner, attr) {
      const key = ownerKeyOf(owner);
      try {
        // Read first to answer whether there was one (the admin API's 404), as cassandra-schema-store.ts does.
        const existed = (await client.execute(cql.exists, [key, attr])).first() !== null;
        await client.execute(cql.remove, [key, attr]);
        return existed;
      } catch (err) {
        throw translateCassandraError(err, 'delete datatag');
      }
    },
  };
}

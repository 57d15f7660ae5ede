import * as t from 'io-ts';
import { ShadowSchema } from '../../schema/codecs';
import { SchemaOwner, SchemaStore } from '../../schema/port';
import { decodeRow } from './cassandra-codecs';
import { CassandraConnection } from './cassandra-client';
import { translateCassandraError } from './cassandra-errors';

const BodyRow = t.type({ body: t.string });

/** The owner's key, as the SQLite store writes it (`/` cannot occur in a project id, so a group key is unambiguous). */
const keyOf = (owner: SchemaOwner) => ('deviceid' in owner ? `device:${owner.deviceid}` : `group:${owner.projectid}/${owner.groupid}`);

/** Schemas in table `schemas` (cassandra-schema.ts), one row per owner; nodes read them through a cache (src/cluster). */
export function createCassandraSchemaStore({ client, tables }: CassandraConnection): SchemaStore {
  const cql = {
    select: `SELECT body FROM ${tables.schemas} WHERE owner = ?`,
    upsert: `INSERT INTO ${tables.schemas} (owner, body) VALUES (?, ?)`,
    exists: `SELECT owner FROM ${tables.schemas} WHERE owner = ?`,
    remove: `DELETE FROM ${tables.schemas} WHERE owner = ?`,
  };
  return {
    async getSchema(owner) {
      try {
        const row = (await client.execute(cql.select, [keyOf(owner)])).first();
        return row === null ? undefined : decodeRow(ShadowSchema, JSON.parse(decodeRow(BodyRow, row).body));
      } catch (err) {
        throw translateCassandraError(err, 'read schema');
      }
    },
    async putSchema(owner, schema) {
      try {
        await client.execute(cql.upsert, [keyOf(owner), JSON.stringify(schema)]);
      } catch (err) {
        throw translateCassandraError(err, 'store schema');
      }
    },
    async deleteSchema(owner) {
      try {
        // Read first to answer whether there was one (the admin API's 404), rather than `IF EXISTS`: a lightweight
        // transaction's timestamp could hide a plain write that follows it, and puts are plain writes.
        const existed = (await client.execute(cql.exists, [keyOf(owner)])).first() !== null;
        await client.execute(cql.remove, [keyOf(owner)]);
        return existed;
      } catch (err) {
        throw translateCassandraError(err, 'delete schema');
      }
    },
  };
}

import type { Database } from 'better-sqlite3';
import * as t from 'io-ts';
import { decodeOrThrow } from '../../core/decode-errors';
import { ShadowSchema } from '../../schema/codecs';
import { SchemaOwner, SchemaStore } from '../../schema/port';

const BodyRow = t.type({ body: t.string });

/** One key for both kinds of owner; `/` cannot occur in a project id, so the group key is unambiguous. */
const keyOf = (owner: SchemaOwner) => ('deviceid' in owner ? `device:${owner.deviceid}` : `group:${owner.projectid}/${owner.groupid}`);

export function createSqliteSchemaStore(db: Database): SchemaStore {
  const select = db.prepare('SELECT body FROM schemas WHERE owner = ?');
  const upsert = db.prepare(
    'INSERT INTO schemas (owner, deviceid, body) VALUES (?, ?, ?) ON CONFLICT (owner) DO UPDATE SET body = excluded.body',
  );
  const remove = db.prepare('DELETE FROM schemas WHERE owner = ?');

  return {
    async getSchema(owner) {
      const row = select.get(keyOf(owner));
      if (row === undefined) return undefined;
      return decodeOrThrow(ShadowSchema, JSON.parse(decodeOrThrow(BodyRow, row, 'INTERNAL').body), 'INTERNAL');
    },
    async putSchema(owner, schema) {
      upsert.run(keyOf(owner), 'deviceid' in owner ? owner.deviceid : null, JSON.stringify(schema));
    },
    async deleteSchema(owner) {
      return remove.run(keyOf(owner)).changes === 1;
    },
  };
}

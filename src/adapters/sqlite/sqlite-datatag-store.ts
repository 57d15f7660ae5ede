import type { Database } from 'better-sqlite3';
import * as t from 'io-ts';
import { decodeOrThrow } from '../../core/decode-errors';
import { Datatag, StoredDatatag } from '../../datatags/codecs';
import { DatatagStore, ownerKeyOf } from '../../datatags/port';

const BodyRow = t.type({ body: t.string });

const decodeTag = (row: unknown): Datatag => decodeOrThrow(StoredDatatag, JSON.parse(decodeOrThrow(BodyRow, row, 'INTERNAL').body), 'INTERNAL');

/** Datatags in table `datatags` of openpie.db (sqlite-database.ts), one row per (owner, attr). */
export function createSqliteDatatagStore(db: Database): DatatagStore {
  const list = db.prepare('SELECT body FROM datatags WHERE owner = ? ORDER BY attr');
  const upsert = db.prepare('INSERT INTO datatags (owner, attr, body) VALUES (?, ?, ?) ON CONFLICT (owner, attr) DO UPDATE SET body = excluded.body');
  const removeAll = db.prepare('DELETE FROM datatags WHERE owner = ?');
  const remove = db.prepare('DELETE FROM datatags WHERE owner = ? AND attr = ?');
  const replace = db.transaction((owner: string, tags: readonly Datatag[]) => {
    removeAll.run(owner);
    for (const tag of tags) upsert.run(owner, tag.attr, JSON.stringify(tag));
  });

  return {
    async listDatatags(owner) {
      return list.all(ownerKeyOf(owner)).map(decodeTag);
    },
    async replaceDatatags(owner, tags) {
      replace(ownerKeyOf(owner), tags);
    },
    async putDatatag(owner, tag) {
      upsert.run(ownerKeyOf(owner), tag.attr, JSON.stringify(tag));
    },
    async deleteDatatag(owner, attr) {
      return remove.run(ownerKeyOf(owner), attr).changes === 1;
    },
  };
}

import type { Database } from 'better-sqlite3';
import * as t from 'io-ts';
import { decodeOrThrow } from '../../core/decode-errors';
import { OperatorRecord, ProjectScope, Role } from '../../operators/codecs';
import { OperatorStore } from '../../operators/port';

const OperatorRow = t.type({ name: t.string, role: Role, projects: t.string, created: t.number, key_digest: t.string });

const recordOf = (raw: unknown): OperatorRecord => {
  const row = decodeOrThrow(OperatorRow, raw, 'INTERNAL');
  const projects = decodeOrThrow(ProjectScope, JSON.parse(row.projects), 'INTERNAL');
  return { name: row.name, role: row.role, projects, created: row.created, keyDigest: row.key_digest };
};

/** Operators in table `operators` (sqlite-database.ts); `projects` is the scope as JSON (`"*"` or a list). */
export function createSqliteOperatorStore(db: Database): OperatorStore {
  const insert = db.prepare('INSERT OR IGNORE INTO operators (name, role, projects, created, key_digest) VALUES (?, ?, ?, ?, ?)');
  const select = db.prepare('SELECT * FROM operators WHERE name = ?');
  const all = db.prepare('SELECT * FROM operators ORDER BY name');
  const setKey = db.prepare('UPDATE operators SET key_digest = ? WHERE name = ?');
  const remove = db.prepare('DELETE FROM operators WHERE name = ?');
  return {
    insert: async (o) => insert.run(o.name, o.role, JSON.stringify(o.projects), o.created, o.keyDigest).changes === 1,
    async get(name) {
      const row = select.get(name);
      return row === undefined ? undefined : recordOf(row);
    },
    list: async () => all.all().map(recordOf),
    setKeyDigest: async (name, keyDigest) => setKey.run(keyDigest, name).changes === 1,
    remove: async (name) => remove.run(name).changes === 1,
  };
}

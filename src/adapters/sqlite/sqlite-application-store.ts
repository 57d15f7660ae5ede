import type { Database } from 'better-sqlite3';
import * as t from 'io-ts';
import { Application } from '../../applications/application';
import { ApplicationGroups } from '../../applications/codecs';
import { ApplicationChanges, ApplicationStore } from '../../applications/port';
import { decodeOrThrow } from '../../core/decode-errors';

const ApplicationRow = t.type({
  app_key: t.string, name: t.string, projectid: t.string, group_ids: t.string, enabled: t.number, secret: t.string, created: t.number,
});

const applicationOf = (raw: unknown): Application => {
  const row = decodeOrThrow(ApplicationRow, raw, 'INTERNAL');
  const groups = decodeOrThrow(ApplicationGroups, JSON.parse(row.group_ids), 'INTERNAL');
  return { key: row.app_key, name: row.name, projectid: row.projectid, groups, enabled: row.enabled === 1, secret: row.secret, created: row.created };
};

/** The columns an update may set, by member (port.ts ApplicationChanges), with how each is stored. */
const COLUMNS: { [K in keyof Required<ApplicationChanges>]: { column: string; value: (v: Required<ApplicationChanges>[K]) => unknown } } = {
  name: { column: 'name', value: (v) => v },
  groups: { column: 'group_ids', value: (v) => JSON.stringify(v) },
  enabled: { column: 'enabled', value: (v) => (v ? 1 : 0) },
  secret: { column: 'secret', value: (v) => v },
};

/** Application keys in table `applications` (sqlite-database.ts): the secret as its digest, the groups as JSON. */
export function createSqliteApplicationStore(db: Database): ApplicationStore {
  const insert = db.prepare(`INSERT OR IGNORE INTO applications (app_key, name, projectid, group_ids, enabled, secret, created)
    VALUES (?, ?, ?, ?, ?, ?, ?)`);
  const select = db.prepare('SELECT * FROM applications WHERE app_key = ?');
  const ofProject = db.prepare('SELECT * FROM applications WHERE projectid = ? ORDER BY created, app_key');
  const all = db.prepare('SELECT * FROM applications ORDER BY projectid, created, app_key');
  const remove = db.prepare('DELETE FROM applications WHERE app_key = ?');
  return {
    async get(key) {
      const row = select.get(key);
      return row === undefined ? undefined : applicationOf(row);
    },
    list: async ({ projectid }) => (projectid === undefined ? all.all() : ofProject.all(projectid)).map(applicationOf),
    insert: async (a) =>
      insert.run(a.key, a.name, a.projectid, JSON.stringify(a.groups), a.enabled ? 1 : 0, a.secret, a.created).changes === 1,
    async update(key, changes) {
      const set = (Object.keys(COLUMNS) as (keyof ApplicationChanges)[]).filter((member) => changes[member] !== undefined);
      if (set.length === 0) return select.get(key) !== undefined;
      // Column names come from COLUMNS alone, never from the caller.
      const sql = `UPDATE applications SET ${set.map((m) => `${COLUMNS[m].column} = ?`).join(', ')} WHERE app_key = ?`;
      const values = set.map((m) => (COLUMNS[m].value as (v: unknown) => unknown)(changes[m]));
      return db.prepare(sql).run(...values, key).changes === 1;
    },
    delete: async (key) => remove.run(key).changes === 1,
  };
}

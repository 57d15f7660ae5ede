import type { Database } from 'better-sqlite3';
import * as t from 'io-ts';
import { decodeOrThrow } from '../../core/decode-errors';
import { ProjectRetentionStore } from '../../timeseries/project-retention';

const RetentionRow = t.type({ retention_ms: t.number });

/** Projects' own retention in table `project_retention` of openpie.db (sqlite-database.ts). */
export function createSqliteProjectRetentionStore(db: Database): ProjectRetentionStore {
  const select = db.prepare('SELECT retention_ms FROM project_retention WHERE projectid = ?');
  const upsert = db.prepare(
    'INSERT INTO project_retention (projectid, retention_ms) VALUES (?, ?) ON CONFLICT (projectid) DO UPDATE SET retention_ms = excluded.retention_ms',
  );
  const remove = db.prepare('DELETE FROM project_retention WHERE projectid = ?');
  return {
    async getRetention(projectid) {
      const row = select.get(projectid);
      return row === undefined ? undefined : decodeOrThrow(RetentionRow, row, 'INTERNAL').retention_ms;
    },
    async putRetention(projectid, retentionMs) {
      upsert.run(projectid, retentionMs);
    },
    async deleteRetention(projectid) {
      return remove.run(projectid).changes === 1;
    },
  };
}

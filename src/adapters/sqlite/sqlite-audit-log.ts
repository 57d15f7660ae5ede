import type { Database } from 'better-sqlite3';
import * as t from 'io-ts';
import { decodeOrThrow } from '../../core/decode-errors';
import { AuditEntry, AuditLog } from '../../operators/port';

const EntryRow = t.type({ body: t.string });

export interface SqliteAuditLogOptions {
  /** AUDIT_RETENTION_DAYS: older entries are deleted as new ones come, and never read. */
  retentionDays: number;
  now?: () => number;
}

/**
 * The audit log in table `audit_log` (sqlite-database.ts), indexed by time and by actor. Each append first deletes what
 * is past the retention, so the table holds about one retention period of admin changes (a few rows a minute at most).
 */
export function createSqliteAuditLog(db: Database, { retentionDays, now = Date.now }: SqliteAuditLogOptions): AuditLog {
  const retentionMs = retentionDays * 86_400_000;
  const prune = db.prepare('DELETE FROM audit_log WHERE at < ?');
  const insert = db.prepare('INSERT INTO audit_log (at, actor, body) VALUES (?, ?, ?)');
  const newest = db.prepare('SELECT body FROM audit_log WHERE at >= ? ORDER BY at DESC, id DESC LIMIT ?');
  const newestOf = db.prepare('SELECT body FROM audit_log WHERE actor = ? AND at >= ? ORDER BY at DESC, id DESC LIMIT ?');
  const append = db.transaction((entry: AuditEntry) => {
    prune.run(now() - retentionMs);
    insert.run(entry.at, entry.actor, JSON.stringify(entry));
  });
  return {
    append: async (entry) => void append(entry),
    async read({ since, limit, actor }) {
      const from = Math.max(since, now() - retentionMs);
      const rows = actor === undefined ? newest.all(from, limit) : newestOf.all(actor, from, limit);
      return rows.map((raw) => JSON.parse(decodeOrThrow(EntryRow, raw, 'INTERNAL').body) as AuditEntry);
    },
  };
}

import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Opens (creating it if needed) a SQLite file with the given pragmas, then applies the migrations it has not seen
 * yet, each in its own transaction; `PRAGMA user_version` remembers how many ran. Every database of the service is
 * WAL with synchronous=FULL: a write is on disk before it is acknowledged, and readers never wait for writers.
 */
export function openMigratedSqlite(file: string, migrations: readonly string[], extraPragmas: readonly string[] = []): Database.Database {
  mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  // page_size (in extraPragmas) only takes effect before WAL mode is first set on a new file.
  for (const pragma of extraPragmas) db.pragma(pragma);
  for (const pragma of ['journal_mode = WAL', 'synchronous = FULL', 'foreign_keys = ON', 'busy_timeout = 5000']) db.pragma(pragma);
  const version = db.pragma('user_version', { simple: true }) as number;
  for (let v = version; v < migrations.length; v++) {
    db.transaction(() => {
      db.exec(migrations[v]);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
  return db;
}

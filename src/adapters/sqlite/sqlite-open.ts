import Database from 'better-sqlite3';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * How a commit reaches the disk: `FULL`, an fsync in the commit itself; `NORMAL`, none, so the caller must sync the
 * WAL before it tells anyone the commit happened (sqlite-wal-sync.ts does, off the event loop).
 */
export type CommitSync = 'FULL' | 'NORMAL';

/**
 * Opens (creating it if needed) a SQLite file with the given pragmas, then applies the migrations it has not seen
 * yet, each in its own transaction; `PRAGMA user_version` remembers how many ran. Every database of the service is
 * WAL, so readers never wait for writers, and an acknowledged write is on disk: with synchronous=FULL by default, or
 * through createWalSync for a store that opens with `NORMAL`.
 */
export function openMigratedSqlite(
  file: string,
  migrations: readonly string[],
  extraPragmas: readonly string[] = [],
  commitSync: CommitSync = 'FULL',
): Database.Database {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  // Made 0600 before SQLite opens it: SQLite gives the -wal and -shm files the database file's mode (issue 20 §1).
  closeSync(openSync(file, 'a', 0o600));
  const db = new Database(file);
  // page_size (in extraPragmas) only takes effect before WAL mode is first set on a new file.
  for (const pragma of extraPragmas) db.pragma(pragma);
  for (const pragma of ['journal_mode = WAL', `synchronous = ${commitSync}`, 'foreign_keys = ON', 'busy_timeout = 5000']) db.pragma(pragma);
  const version = db.pragma('user_version', { simple: true }) as number;
  for (let v = version; v < migrations.length; v++) {
    db.transaction(() => {
      db.exec(migrations[v]);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
  return db;
}

/**
 * A second connection to a database `openMigratedSqlite` opened (and migrated): for a store that commits with its own
 * CommitSync, such as shadow writes synced off the event loop beside the registry's synchronous=FULL writes.
 */
export function openSqliteConnection(file: string, commitSync: CommitSync): Database.Database {
  const db = new Database(file);
  for (const pragma of ['journal_mode = WAL', `synchronous = ${commitSync}`, 'foreign_keys = ON', 'busy_timeout = 5000']) db.pragma(pragma);
  return db;
}

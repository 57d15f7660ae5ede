import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** Schema migrations, applied in order; `PRAGMA user_version` remembers how many ran. */
const MIGRATIONS = [
  `CREATE TABLE devices (
     deviceid TEXT PRIMARY KEY,
     token TEXT NOT NULL,
     secret TEXT NOT NULL,
     alias TEXT NOT NULL,
     groupid TEXT NOT NULL,
     projectid TEXT NOT NULL,
     enabled INTEGER NOT NULL,
     banned INTEGER NOT NULL,
     description TEXT NOT NULL,
     livenessttl INTEGER NOT NULL,
     created INTEGER NOT NULL,
     UNIQUE (projectid, groupid, alias)
   );
   CREATE INDEX devices_by_project_alias ON devices (projectid, alias);
   CREATE TABLE shadows (
     deviceid TEXT PRIMARY KEY REFERENCES devices (deviceid) ON DELETE CASCADE,
     data TEXT NOT NULL,
     rev INTEGER NOT NULL,
     modified INTEGER NOT NULL,
     timestamp INTEGER NOT NULL
   );`,
  // One row per committed write: its points as a JSON array, waiting for the time-series store.
  `CREATE TABLE point_outbox (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     points TEXT NOT NULL
   );`,
];

/**
 * Opens (and creates or migrates) the embedded database in `dataDir`. WAL mode with synchronous=FULL: a write is
 * on disk before it is acknowledged, and readers never wait for writers.
 */
export function openSqliteDatabase(dataDir: string): Database.Database {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(join(dataDir, 'openpie.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  const version = db.pragma('user_version', { simple: true }) as number;
  for (let v = version; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
  return db;
}

import type Database from 'better-sqlite3';
import { join } from 'node:path';
import { openMigratedSqlite } from './sqlite-open';

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

/** Opens (and creates or migrates) the registry, shadow and outbox database, DATA_DIR/openpie.db. */
export function openSqliteDatabase(dataDir: string): Database.Database {
  return openMigratedSqlite(join(dataDir, 'openpie.db'), MIGRATIONS);
}

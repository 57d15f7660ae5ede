import type Database from 'better-sqlite3';
import { join } from 'node:path';
import { openMigratedSqlite } from '../sqlite/sqlite-open';

export const TIMESERIES_FILE = 'timeseries.db';

export const timeSeriesFileIn = (dataDir: string): string => join(dataDir, TIMESERIES_FILE);

/**
 * Schema migrations, applied in order; `PRAGMA user_version` remembers how many ran.
 * - `series`: one row per (metric, exact tag set) (KairosDB reference §2.4), tags as canonical JSON: [[name, value],
 *   ...] sorted by name. The whole table is cached in memory (see sqlite-timeseries-catalog.ts).
 * - `blocks`: sealed, immutable runs of one series, up to 2048 points by default (sqlite-timeseries-codec.ts).
 *   Blocks of a series never overlap in time, so the index on (series_id, last_ts) finds the blocks of a range
 *   without touching the blobs, and a range read decodes only those.
 * - `head`: the fragments written since the series' last seal, one row per (write, series). Together with the
 *   blocks they are the series; a seal merges them into the blocks in the transaction of the write that fills the
 *   head, so every write is durable as it commits and no background work can be lost.
 * - 2, retention (issue 23 §2): each block and head fragment may carry its points' expiries (`expiries`, see
 *   sqlite-timeseries-codec.ts) and when its last point expires (`expires_at`; NULL: some point never expires, as in
 *   every row written before). The series-time index now covers `expires_at`, so reads and counts skip expired
 *   blocks from the index alone; the expiry indexes find what the cleanup drops.
 */
export const TIMESERIES_MIGRATIONS = [
  `CREATE TABLE series (
     id INTEGER PRIMARY KEY,
     metric TEXT NOT NULL,
     tags TEXT NOT NULL,
     UNIQUE (metric, tags)
   );
   CREATE TABLE blocks (
     id INTEGER PRIMARY KEY,
     series_id INTEGER NOT NULL REFERENCES series (id),
     first_ts INTEGER NOT NULL,
     last_ts INTEGER NOT NULL,
     count INTEGER NOT NULL,
     timestamps BLOB NOT NULL,
     "values" BLOB NOT NULL
   );
   CREATE INDEX blocks_by_series_time ON blocks (series_id, last_ts, first_ts, count);
   CREATE TABLE head (
     id INTEGER PRIMARY KEY,
     series_id INTEGER NOT NULL REFERENCES series (id),
     first_ts INTEGER NOT NULL,
     last_ts INTEGER NOT NULL,
     count INTEGER NOT NULL,
     timestamps BLOB NOT NULL,
     "values" BLOB NOT NULL
   );
   CREATE INDEX head_by_series_time ON head (series_id, last_ts, first_ts);`,
  `ALTER TABLE blocks ADD COLUMN expiries BLOB;
   ALTER TABLE blocks ADD COLUMN expires_at INTEGER;
   ALTER TABLE head ADD COLUMN expiries BLOB;
   ALTER TABLE head ADD COLUMN expires_at INTEGER;
   CREATE INDEX blocks_by_series_time_expiry ON blocks (series_id, last_ts, first_ts, count, expires_at);
   DROP INDEX blocks_by_series_time;
   CREATE INDEX blocks_by_expiry ON blocks (expires_at) WHERE expires_at IS NOT NULL;
   CREATE INDEX head_by_expiry ON head (expires_at) WHERE expires_at IS NOT NULL;`,
];

/**
 * Opens (and creates or migrates) the time-series database, a file of its own beside openpie.db: its bulk and its
 * WAL checkpoints stay out of the registry's file, it can be moved or dropped on its own, and its page size suits
 * blobs. WAL with synchronous=NORMAL, the store syncing the WAL itself before writePoints resolves (off the event
 * loop, see sqlite-wal-sync.ts), so a write is on disk when it resolves and reads never wait for it.
 */
export function openSqliteTimeSeriesDatabase(dataDir: string): Database.Database {
  return openMigratedSqlite(timeSeriesFileIn(dataDir), TIMESERIES_MIGRATIONS, [
    // Set before the first table of a new file (it has no effect on an older one until a VACUUM): pages freed by the
    // retention cleanup go back to the file system with `incremental_vacuum` (sqlite-timeseries-cleanup.ts).
    'auto_vacuum = INCREMENTAL',
    // A block of 2048 points at 1 Hz is ~20 KB: 2 pages rather than 5, and with 1024 or fewer points one page.
    // Measured (bench/timeseries-store.ts): 10-30% faster scans than 4 KiB pages.
    'page_size = 16384',
    // 64 MiB of page cache (the default is 2 MiB): the indexes and recent blocks stay in memory.
    'cache_size = -65536',
    // Long bulk transactions grow the WAL; give the space back once it is checkpointed.
    'journal_size_limit = 67108864',
  ], 'NORMAL');
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openSqliteDatabase } from '../src/adapters/sqlite/sqlite-database';
import { openSqliteConnection } from '../src/adapters/sqlite/sqlite-open';
import { createWalSync } from '../src/adapters/sqlite/sqlite-wal-sync';

export interface CommitRun {
  commitsPerSecond: number;
  commits: number;
  seconds: number;
}

/**
 * The disk's part of a shadow write: one-row UPDATE commits in a database opened exactly as the service opens its
 * own (today WAL with synchronous=FULL, so one fsync per commit). A shadow write cannot beat this, and on a shared
 * disk it moves between runs far more than the Koa baseline, which never touches the disk. Synchronous, like
 * better-sqlite3 in the service: run it while nothing else in this process has work.
 */
export function measureSqliteCommits(maxCommits: number, maxMs: number): CommitRun {
  const dir = mkdtempSync(join(tmpdir(), 'openpie-bench-sqlite-'));
  try {
    const db = openSqliteDatabase(dir);
    try {
      db.exec('CREATE TABLE bench_commits (id INTEGER PRIMARY KEY, data TEXT NOT NULL)');
      db.prepare('INSERT INTO bench_commits (id, data) VALUES (1, ?)').run('{}');
      const update = db.prepare('UPDATE bench_commits SET data = ? WHERE id = 1');
      const start = performance.now();
      let commits = 0;
      while (commits < maxCommits && performance.now() - start < maxMs) {
        update.run(JSON.stringify({ temp: commits, humid: commits }));
        commits++;
      }
      const seconds = (performance.now() - start) / 1000;
      return { commitsPerSecond: commits / seconds, commits, seconds };
    } finally {
      db.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The ceiling of a durable shadow write as the service commits one (issue 26 §2): `writers` concurrent writers, each
 * committing one one-row UPDATE per transaction on a connection with synchronous=NORMAL, then waiting, as a shadow
 * write does before its answer, for an fdatasync of the WAL off the event loop (sqlite-wal-sync.ts), which the
 * writers that committed meanwhile share. measureSqliteCommits is one writer with synchronous=FULL, an fsync inside
 * every commit: the service's registry writes, not its shadow writes, whose syncs are shared.
 */
export async function measureSharedSyncCommits(writers: number, maxCommits: number, maxMs: number): Promise<CommitRun> {
  const dir = mkdtempSync(join(tmpdir(), 'openpie-bench-sqlite-'));
  try {
    const file = join(dir, 'commits.db');
    const db = openSqliteConnection(file, 'NORMAL');
    const synced = createWalSync(file);
    try {
      db.exec('CREATE TABLE bench_commits (id INTEGER PRIMARY KEY, data TEXT NOT NULL)');
      const insert = db.prepare('INSERT INTO bench_commits (id, data) VALUES (?, ?)');
      for (let id = 0; id < writers; id++) insert.run(id, '{}');
      const update = db.prepare('UPDATE bench_commits SET data = ? WHERE id = ?');
      const commitOne = db.transaction((id: number, n: number) => update.run(JSON.stringify({ temp: n, humid: n }), id));
      const start = performance.now();
      let commits = 0;
      const writer = async (id: number) => {
        while (commits < maxCommits && performance.now() - start < maxMs) {
          commitOne(id, commits++);
          await synced();
        }
      };
      await Promise.all(Array.from({ length: writers }, (_, id) => writer(id)));
      const seconds = (performance.now() - start) / 1000;
      return { commitsPerSecond: commits / seconds, commits, seconds };
    } finally {
      synced.close();
      db.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openSqliteDatabase } from '../src/adapters/sqlite/sqlite-database';

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

import type Database from 'better-sqlite3';
import { ReadinessCheck } from '../../health/port';

/** A trivial query: fails when the database is closed or its file can no longer be read. */
export function sqliteReadinessCheck(name: string, db: Pick<Database.Database, 'prepare'>): ReadinessCheck {
  return {
    name,
    async check() {
      db.prepare('SELECT 1').get();
    },
  };
}

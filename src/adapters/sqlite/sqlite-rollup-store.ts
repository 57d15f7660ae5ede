import type { Database } from 'better-sqlite3';
import * as t from 'io-ts';
import { decodeOrThrow } from '../../core/decode-errors';
import { RollupStore } from '../../timeseries/rollups/port';
import { tiersFromText, tiersToText } from '../../timeseries/rollups/stored-tiers';

const RollupRow = t.type({ tiers: t.string, declared_at: t.number, built_at: t.union([t.number, t.null]) });

/** Projects' roll-up declarations in table `rollups` of openpie.db (sqlite-database.ts). */
export function createSqliteRollupStore(db: Database): RollupStore {
  const select = db.prepare('SELECT tiers, declared_at, built_at FROM rollups WHERE projectid = ?');
  const upsert = db.prepare(
    `INSERT INTO rollups (projectid, tiers, declared_at, built_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (projectid) DO UPDATE SET tiers = excluded.tiers, declared_at = excluded.declared_at, built_at = excluded.built_at`,
  );
  const built = db.prepare('UPDATE rollups SET built_at = ? WHERE projectid = ? AND declared_at = ?');
  const remove = db.prepare('DELETE FROM rollups WHERE projectid = ?');
  const unbuilt = db.prepare('SELECT projectid FROM rollups WHERE built_at IS NULL ORDER BY projectid');
  return {
    async getRollups(projectid) {
      const row = select.get(projectid);
      if (row === undefined) return undefined;
      const { tiers, declared_at: declaredAt, built_at: builtAt } = decodeOrThrow(RollupRow, row, 'INTERNAL');
      return { tiers: tiersFromText(tiers), declaredAt, builtAt: builtAt ?? undefined };
    },
    async putRollups(projectid, { tiers, declaredAt, builtAt }) {
      upsert.run(projectid, tiersToText(tiers), declaredAt, builtAt ?? null);
    },
    async markBuilt(projectid, declaredAt, builtAt) {
      return built.run(builtAt, projectid, declaredAt).changes === 1;
    },
    async deleteRollups(projectid) {
      return remove.run(projectid).changes === 1;
    },
    async listUnbuilt() {
      return (unbuilt.all() as { projectid: string }[]).map((row) => row.projectid);
    },
  };
}

import type { Database } from 'better-sqlite3';
import * as t from 'io-ts';
import { decodeOrThrow } from '../../core/decode-errors';
import { QuotaStore, UsageCharge } from '../../quotas/port';
import { Amounts, QUOTA_NAMES, QuotaName } from '../../quotas/quota';
import { QuotaLimits } from '../../quotas/codecs';

const BodyRow = t.type({ body: t.string });
const UsageRow = t.type({ quota: t.string, used: t.number });

const isQuotaName = (q: string): q is QuotaName => (QUOTA_NAMES as readonly string[]).includes(q);

/**
 * Adds charges to the counters; a function to call inside a transaction of the same database, so a shadow write
 * and its charge commit together (see sqlite-shadow-store.ts).
 */
export function usageAdder(db: Database): (charge: UsageCharge) => void {
  const add = db.prepare(
    `INSERT INTO quota_usage (projectid, month, quota, used) VALUES (?, ?, ?, ?)
     ON CONFLICT (projectid, month, quota) DO UPDATE SET used = used + excluded.used`,
  );
  return ({ projectid, month, amounts }) => {
    for (const q of QUOTA_NAMES) {
      const amount = amounts[q];
      if (amount) add.run(projectid, month, q, amount);
    }
  };
}

export function createSqliteQuotaStore(db: Database): QuotaStore {
  const selectLimits = db.prepare('SELECT body FROM quota_limits WHERE projectid = ?');
  const upsertLimits = db.prepare(
    'INSERT INTO quota_limits (projectid, body) VALUES (?, ?) ON CONFLICT (projectid) DO UPDATE SET body = excluded.body',
  );
  const selectUsage = db.prepare('SELECT quota, used FROM quota_usage WHERE projectid = ? AND month = ?');
  const add = usageAdder(db);
  const addAll = db.transaction((charges: readonly UsageCharge[]) => charges.forEach(add));

  return {
    async getLimits(projectid) {
      const row = selectLimits.get(projectid);
      if (row === undefined) return {};
      return decodeOrThrow(QuotaLimits, JSON.parse(decodeOrThrow(BodyRow, row, 'INTERNAL').body), 'INTERNAL');
    },
    async setLimits(projectid, limits) {
      upsertLimits.run(projectid, JSON.stringify(limits));
    },
    async readUsage(projectid, month) {
      const usage: Amounts = {};
      for (const raw of selectUsage.all(projectid, month)) {
        const row = decodeOrThrow(UsageRow, raw, 'INTERNAL');
        if (isQuotaName(row.quota)) usage[row.quota] = row.used;
      }
      return usage;
    },
    async addUsage(charges) {
      addAll(charges);
    },
  };
}

import type { Database } from 'better-sqlite3';
import * as t from 'io-ts';
import { decodeOrThrow } from '../../core/decode-errors';
import { LedgerEntry, QuotaLedger, QuotaLimitStore, UsageCharge } from '../../quotas/port';
import { QUOTA_NAMES, QuotaName } from '../../quotas/quota';
import { QuotaLimits } from '../../quotas/codecs';

const BodyRow = t.type({ body: t.string });
const UsageRow = t.type({ quota: t.string, used: t.number });

const isQuotaName = (q: string): q is QuotaName => (QUOTA_NAMES as readonly string[]).includes(q);

/** The name the rows of a node alone go by (QuotaLedger.singleNode): its counts are its own, whatever NODE_ID says. */
export const SQLITE_NODE = 'this-node';

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

/** The limits of each project in `quota_limits`, as JSON. */
export function createSqliteQuotaLimitStore(db: Database): QuotaLimitStore {
  const selectLimits = db.prepare('SELECT body FROM quota_limits WHERE projectid = ?');
  const upsertLimits = db.prepare(
    'INSERT INTO quota_limits (projectid, body) VALUES (?, ?) ON CONFLICT (projectid) DO UPDATE SET body = excluded.body',
  );
  return {
    async getLimits(projectid) {
      const row = selectLimits.get(projectid);
      if (row === undefined) return {};
      return decodeOrThrow(QuotaLimits, JSON.parse(decodeOrThrow(BodyRow, row, 'INTERNAL').body), 'INTERNAL');
    },
    async setLimits(projectid, limits) {
      upsertLimits.run(projectid, JSON.stringify(limits));
    },
  };
}

/**
 * The ledger of a node alone, in `quota_usage` (one row per project, month and quota): the counts are the node's, and
 * shadow writes add their charges to the same rows in their own transactions (usageAdder). No other node can want
 * any of a limit, so a grant needs no record: every one is given (the service asks for the whole limit), and reads
 * answer version 0 and nothing granted; after a restart the node is granted the whole limit again.
 */
export function createSqliteQuotaLedger(db: Database): QuotaLedger {
  const selectUsage = db.prepare('SELECT quota, used FROM quota_usage WHERE projectid = ? AND month = ?');
  const upsertUsed = db.prepare(
    `INSERT INTO quota_usage (projectid, month, quota, used) VALUES (?, ?, ?, ?)
     ON CONFLICT (projectid, month, quota) DO UPDATE SET used = excluded.used`,
  );
  const saveAll = db.transaction((counts: Parameters<QuotaLedger['saveUsed']>[1]) => {
    for (const c of counts) upsertUsed.run(c.projectid, c.month, c.quota, c.used);
  });
  return {
    singleNode: SQLITE_NODE,
    async read(projectid, month) {
      const entries: LedgerEntry[] = [];
      for (const raw of selectUsage.all(projectid, month)) {
        const row = decodeOrThrow(UsageRow, raw, 'INTERNAL');
        if (isQuotaName(row.quota)) entries.push({ quota: row.quota, node: SQLITE_NODE, used: row.used, granted: 0 });
      }
      return { version: 0, entries };
    },
    // Written in the same synchronous step as the service computes the counts, so no shadow commit's charge
    // (usageAdder) falls between the two (src/quotas/service.ts settles those as they commit).
    async saveUsed(_node, counts) {
      saveAll(counts);
    },
    async setGranted() {
      return true;
    },
  };
}

import { types } from 'cassandra-driver';
import * as t from 'io-ts';
import { QuotaLimits } from '../../quotas/codecs';
import { LedgerEntry, QuotaLedger, QuotaLimitStore } from '../../quotas/port';
import { QUOTA_NAMES, QuotaName } from '../../quotas/quota';
import { BigintNumber, decodeRow, nullable } from './cassandra-codecs';
import { CassandraConnection } from './cassandra-client';
import { isUnknownWriteOutcome, translateCassandraError } from './cassandra-errors';

const BodyRow = t.type({ body: t.string });
const LedgerRow = t.type({
  version: nullable(BigintNumber),
  quota: nullable(t.string),
  node: nullable(t.string),
  used: nullable(BigintNumber),
  granted: nullable(BigintNumber),
});
const GrantRow = t.type({ granted: nullable(BigintNumber) });

const isQuotaName = (q: string): q is QuotaName => (QUOTA_NAMES as readonly string[]).includes(q);
/** Saves of one flush under way at once. */
const SAVE_CONCURRENCY = 16;

/** The limits of each project in `quota_limits`, one row per project. */
export function createCassandraQuotaLimitStore({ client, tables }: CassandraConnection): QuotaLimitStore {
  const cql = {
    select: `SELECT body FROM ${tables.quotaLimits} WHERE projectid = ?`,
    upsert: `INSERT INTO ${tables.quotaLimits} (projectid, body) VALUES (?, ?)`,
  };
  return {
    async getLimits(projectid) {
      try {
        const row = (await client.execute(cql.select, [projectid])).first();
        return row === null ? {} : decodeRow(QuotaLimits, JSON.parse(decodeRow(BodyRow, row).body));
      } catch (err) {
        throw translateCassandraError(err, 'read quota limits');
      }
    },
    async setLimits(projectid, limits) {
      try {
        await client.execute(cql.upsert, [projectid, JSON.stringify(limits)]);
      } catch (err) {
        throw translateCassandraError(err, 'store quota limits');
      }
    },
  };
}

/**
 * The quota ledger in `quota_ledger` (cassandra-schema.ts): one partition per project and month, one row per quota
 * and node. Cassandra's counter columns are not used: an increment whose answer is lost cannot be retried without
 * perhaps counting twice. Instead each node writes the absolute value of its own `used`, which is safe to repeat,
 * and grants are compare-and-sets on the partition's `version`: a conditional batch sets the node's `granted` and
 * the next version, so of two nodes granting themselves blocks at once from the same reading, one is told to read
 * again. A grant whose answer is lost is settled by reading the node's own row at SERIAL, which also finishes or
 * aborts the Paxos round: only this node writes its `granted`, so the value read says whether the grant applied.
 */
export function createCassandraQuotaLedger({ client, tables }: CassandraConnection): QuotaLedger {
  const row = 'projectid = ? AND month = ? AND quota = ? AND node = ?';
  const cql = {
    read: `SELECT version, quota, node, used, granted FROM ${tables.quotaLedger} WHERE projectid = ? AND month = ?`,
    saveUsed: `UPDATE ${tables.quotaLedger} SET used = ? WHERE ${row}`,
    grant: `UPDATE ${tables.quotaLedger} SET granted = ? WHERE ${row}`,
    bumpFirst: `UPDATE ${tables.quotaLedger} SET version = ? WHERE projectid = ? AND month = ? IF version = null`,
    bump: `UPDATE ${tables.quotaLedger} SET version = ? WHERE projectid = ? AND month = ? IF version = ?`,
    ownGrant: `SELECT granted FROM ${tables.quotaLedger} WHERE ${row}`,
  };
  const long = types.Long.fromNumber;

  return {
    async read(projectid, month) {
      try {
        const entries: LedgerEntry[] = [];
        let version = 0;
        for await (const raw of await client.execute(cql.read, [projectid, month], { fetchSize: 1000 })) {
          const r = decodeRow(LedgerRow, raw);
          version = r.version ?? 0;
          // A partition holding only its version answers one row with the clustering columns null.
          if (r.quota == null || r.node == null || !isQuotaName(r.quota)) continue;
          entries.push({ quota: r.quota, node: r.node, used: r.used ?? 0, granted: r.granted ?? 0 });
        }
        return { version, entries };
      } catch (err) {
        throw translateCassandraError(err, 'read the quota ledger');
      }
    },

    async saveUsed(node, counts) {
      let next = 0;
      const worker = async () => {
        while (next < counts.length) {
          const c = counts[next++];
          await client.execute(cql.saveUsed, [long(c.used), c.projectid, c.month, c.quota, node]);
        }
      };
      try {
        await Promise.all(Array.from({ length: Math.min(SAVE_CONCURRENCY, counts.length) }, worker));
      } catch (err) {
        throw translateCassandraError(err, 'save quota counters');
      }
    },

    async setGranted(projectid, month, quota, node, granted, version) {
      const key = [projectid, month, quota, node];
      const bump = version === 0
        ? { query: cql.bumpFirst, params: [long(1), projectid, month] }
        : { query: cql.bump, params: [long(version + 1), projectid, month, long(version)] };
      try {
        try {
          const rs = await client.batch([{ query: cql.grant, params: [long(granted), ...key] }, bump]);
          return rs.first().get('[applied]') === true;
        } catch (err) {
          if (!isUnknownWriteOutcome(err)) throw err;
          const own = (await client.execute(cql.ownGrant, key, { consistency: types.consistencies.serial })).first();
          return own !== null && decodeRow(GrantRow, own).granted === granted;
        }
      } catch (err) {
        throw translateCassandraError(err, 'grant quota');
      }
    },
  };
}

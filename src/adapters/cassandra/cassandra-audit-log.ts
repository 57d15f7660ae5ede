import { types } from 'cassandra-driver';
import * as t from 'io-ts';
import { AuditEntry, AuditLog } from '../../operators/port';
import { decodeRow } from './cassandra-codecs';
import { CassandraConnection } from './cassandra-client';
import { translateCassandraError } from './cassandra-errors';

const EntryRow = t.type({ actor: t.string, body: t.string });
const DAY_MS = 86_400_000;

export interface CassandraAuditLogOptions {
  /** AUDIT_RETENTION_DAYS: each entry is written with this TTL, so Cassandra forgets it on its own. */
  retentionDays: number;
  now?: () => number;
}

/**
 * The audit log in table `audit_log` (cassandra-schema.ts): one partition per UTC day, newest first, every row written
 * with a TTL of the retention. Admin changes are a few a minute at most, so one partition a day stays small. A
 * read walks the days from tomorrow (another node's clock may run ahead) back to `since`, at most the retention.
 */
export function createCassandraAuditLog({ client, tables }: CassandraConnection, { retentionDays, now = Date.now }: CassandraAuditLogOptions): AuditLog {
  const ttlSeconds = retentionDays * 86_400;
  const cql = {
    insert: `INSERT INTO ${tables.auditLog} (day, at, actor, body) VALUES (?, ?, ?, ?) USING TTL ?`,
    day: `SELECT actor, body FROM ${tables.auditLog} WHERE day = ? AND at >= minTimeuuid(?)`,
  };
  return {
    async append(entry) {
      try {
        const at = types.TimeUuid.fromDate(new Date(entry.at));
        await client.execute(cql.insert, [Math.floor(entry.at / DAY_MS), at, entry.actor, JSON.stringify(entry), ttlSeconds]);
      } catch (err) {
        throw translateCassandraError(err, 'append to the audit log');
      }
    },
    async read({ since, limit, actor }) {
      const found: AuditEntry[] = [];
      const from = Math.max(since, now() - retentionDays * DAY_MS);
      try {
        for (let day = Math.floor(now() / DAY_MS) + 1; day >= Math.floor(from / DAY_MS) && found.length < limit; day--) {
          const rows = await client.execute(cql.day, [day, new Date(from)], { fetchSize: 500 });
          for await (const raw of rows) {
            const row = decodeRow(EntryRow, raw);
            if (actor !== undefined && row.actor !== actor) continue;
            found.push(JSON.parse(row.body) as AuditEntry);
            if (found.length >= limit) break;
          }
        }
      } catch (err) {
        throw translateCassandraError(err, 'read the audit log');
      }
      return found;
    },
  };
}

import { types } from 'cassandra-driver';
import * as t from 'io-ts';
import { StoredDelivery } from '../../triggers/codecs';
import { Delivery, DeliveryLog } from '../../triggers/port';
import { decodeRow, TimeUuidCodec } from './cassandra-codecs';
import { CassandraConnection } from './cassandra-client';
import { translateCassandraError } from './cassandra-errors';
import { DELIVERY_TTL_SECONDS } from './cassandra-schema';

const EntryRow = t.type({ id: TimeUuidCodec, body: t.string });

const DAY_MS = 86_400_000;
/** Day partitions a listing may have to read: every day an entry can still be alive in, today included. */
const DAYS_KEPT = Math.ceil(DELIVERY_TTL_SECONDS / 86_400) + 1;

export interface CassandraDeliveryLogOptions {
  now?: () => number;
}

/** An entry's id: microseconds since the epoch of its time-based key (below 2^53 until the year 2255). */
function idOf(key: types.TimeUuid): number {
  const { date, ticks } = key.getDatePrecision();
  return date.getTime() * 1000 + Math.floor(ticks / 10);
}

/**
 * The delivery log in `deliveries` (by project) and `deliveries_by_device`, one partition per UTC day, each entry
 * written to both in one logged batch and expiring after DELIVERY_TTL_SECONDS (7 days): unlike SQLite's newest 1000
 * per project, the log is kept by age, since Cassandra cannot cheaply delete the oldest rows of a partition. Ids
 * are the entries' times in microseconds, increasing within each node; their keys add random bits, so entries of two
 * nodes written in the same microsecond are both kept.
 */
export function createCassandraDeliveryLog({ client, tables }: CassandraConnection, options: CassandraDeliveryLogOptions = {}): DeliveryLog {
  const now = options.now ?? Date.now;
  const cql = {
    byProject: `INSERT INTO ${tables.deliveries} (projectid, day, id, body) VALUES (?, ?, ?, ?)`,
    byDevice: `INSERT INTO ${tables.deliveriesByDevice} (projectid, deviceid, day, id, body) VALUES (?, ?, ?, ?, ?)`,
    listProject: `SELECT id, body FROM ${tables.deliveries} WHERE projectid = ? AND day = ? LIMIT ?`,
    listDevice: `SELECT id, body FROM ${tables.deliveriesByDevice} WHERE projectid = ? AND deviceid = ? AND day = ? LIMIT ?`,
  };
  let lastMicros = 0;
  /** A fresh key, later than every key this node made before. */
  function nextKey(): { key: types.TimeUuid; day: number } {
    const micros = Math.max(now() * 1000, lastMicros + 1);
    lastMicros = micros;
    const ms = Math.floor(micros / 1000);
    return { key: types.TimeUuid.fromDate(new Date(ms), (micros % 1000) * 10), day: Math.floor(ms / DAY_MS) };
  }

  return {
    async append(entry) {
      const { key, day } = nextKey();
      const body = JSON.stringify(entry);
      try {
        await client.batch([
          { query: cql.byProject, params: [entry.projectid, day, key, body] },
          { query: cql.byDevice, params: [entry.projectid, entry.deviceid, day, key, body] },
        ]);
      } catch (err) {
        throw translateCassandraError(err, 'log delivery');
      }
    },

    async list(projectid, { deviceid, limit }) {
      const found: Delivery[] = [];
      const today = Math.floor(now() / DAY_MS);
      try {
        // From tomorrow: another node's clock may run a little ahead of this one's around midnight.
        for (let day = today + 1; day > today - DAYS_KEPT && found.length < limit; day--) {
          const left = limit - found.length;
          const rs = deviceid === undefined
            ? await client.execute(cql.listProject, [projectid, day, left])
            : await client.execute(cql.listDevice, [projectid, deviceid, day, left]);
          for (const raw of rs.rows) {
            const row = decodeRow(EntryRow, raw);
            found.push({ id: idOf(row.id), ...decodeRow(StoredDelivery, JSON.parse(row.body)) });
          }
        }
      } catch (err) {
        throw translateCassandraError(err, 'read the delivery log');
      }
      return found;
    },
  };
}

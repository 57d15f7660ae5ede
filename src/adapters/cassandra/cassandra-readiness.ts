import { ReadinessCheck } from '../../health/port';
import { CassandraConnection } from './cassandra-client';

/**
 * One single-partition read at LOCAL_QUORUM, the consistency of every write: it fails when too few replicas of the
 * keyspace answer, not only when the contact point is down. The key matches no device (device ids are UUIDs), so
 * the read is cheap.
 */
export function cassandraReadinessCheck(name: string, { client, tables }: Pick<CassandraConnection, 'client' | 'tables'>): ReadinessCheck {
  const query = `SELECT deviceid FROM ${tables.devices} WHERE deviceid = 'readiness-probe'`;
  return {
    name,
    async check() {
      await client.execute(query);
    },
  };
}

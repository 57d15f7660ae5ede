import type { Client } from 'cassandra-driver';

/** Replicas per data centre: a number for SimpleStrategy, or `{dc: n}` for NetworkTopologyStrategy. */
export type CassandraReplication = number | Readonly<Record<string, number>>;

/** Partitions of `pending_outboxes`, so that the writes marking devices with queued points spread over the ring. */
export const PENDING_SHARDS = 16;

/** The fully qualified names of the tables in `keyspace` (a CQL identifier, checked by src/config.ts). */
export const tablesIn = (keyspace: string) => ({
  devices: `${keyspace}.devices`,
  names: `${keyspace}.device_names`,
  shadows: `${keyspace}.shadows`,
  pending: `${keyspace}.pending_outboxes`,
});

export type CassandraTables = ReturnType<typeof tablesIn>;

function replicationMap(replication: CassandraReplication): string {
  if (typeof replication === 'number') return `{'class': 'SimpleStrategy', 'replication_factor': ${replication}}`;
  const dcs = Object.entries(replication).map(([dc, n]) => `'${dc.replaceAll("'", "''")}': ${n}`);
  return `{'class': 'NetworkTopologyStrategy', ${dcs.join(', ')}}`;
}

/**
 * The data model (README "Production backends: Cassandra"), one table per way it is read:
 *
 * - `devices`: the registry, one row per device, read on every authenticated request.
 * - `device_names`: who holds each alias of a group, the uniqueness the registry needs. A claim is a lightweight
 *   transaction (INSERT ... IF NOT EXISTS); the partition is the project, so that listing a project, or finding an
 *   alias in every group of it, is one partition read. See cassandra-device-names.ts.
 * - `shadows`: one partition per device holding its shadow in static columns and, as clustering rows, its outbox:
 *   the points of each committed write not yet in the time-series store. A write is one conditional BATCH on that
 *   one partition (`IF rev = ?` plus the outbox row), so the compare-and-set and the queued points apply together
 *   or not at all: Cassandra only runs lightweight transactions within one partition. `rev` is 0 from the device's
 *   creation and null once it is deleted, which is how a write learns that its device is gone. `tail` is the id of
 *   the last commit; commits must be above it, so outbox rows are appended in commit order and the relay can drop
 *   what it moved with one range tombstone (per-row deletes would leave a tombstone per write for every read of the
 *   partition to skip). See cassandra-shadow-store.ts and cassandra-point-outbox.ts.
 * - `pending_outboxes`: which devices have queued points, so the relay finds them without scanning every shadow.
 *   A marker that outlives its points costs one empty read, so its tombstones need not be kept long.
 */
export function schemaStatements(keyspace: string, replication: CassandraReplication): string[] {
  const t = tablesIn(keyspace);
  return [
    `CREATE KEYSPACE IF NOT EXISTS ${keyspace} WITH replication = ${replicationMap(replication)}`,
    `CREATE TABLE IF NOT EXISTS ${t.devices} (
       deviceid text PRIMARY KEY,
       "token" text, secret text, alias text, groupid text, projectid text,
       enabled boolean, banned boolean, description text, livenessttl int, created bigint
     )`,
    `CREATE TABLE IF NOT EXISTS ${t.names} (
       projectid text, alias text, groupid text,
       deviceid text, owner uuid, claimed bigint,
       PRIMARY KEY ((projectid), alias, groupid)
     )`,
    `CREATE TABLE IF NOT EXISTS ${t.shadows} (
       deviceid text,
       seq timeuuid,
       rev bigint static, data text static, modified bigint static, data_time bigint static, tail timeuuid static,
       points text,
       PRIMARY KEY ((deviceid), seq)
     ) WITH CLUSTERING ORDER BY (seq ASC)`,
    `CREATE TABLE IF NOT EXISTS ${t.pending} (
       shard int, deviceid text, marked boolean,
       PRIMARY KEY ((shard), deviceid)
     ) WITH gc_grace_seconds = 3600`,
  ];
}

/**
 * Creates the keyspace and tables when missing (never alters or drops). The driver waits for schema agreement
 * after each statement. Two service nodes starting at once on one Cassandra node are safe: that node applies
 * schema changes one at a time and the second CREATE finds the table.
 */
export async function createCassandraSchema(client: Client, keyspace: string, replication: CassandraReplication): Promise<void> {
  for (const statement of schemaStatements(keyspace, replication)) await client.execute(statement, [], { prepare: false });
}

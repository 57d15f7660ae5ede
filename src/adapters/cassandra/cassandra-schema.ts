import type { Client } from 'cassandra-driver';

/** Replicas per data centre: a number for SimpleStrategy, or `{dc: n}` for NetworkTopologyStrategy. */
export type CassandraReplication = number | Readonly<Record<string, number>>;

/** Partitions of `pending_outboxes`, so that the writes marking devices with queued points spread over the ring. */
export const PENDING_SHARDS = 16;

/** The fully qualified names of the tables in `keyspace` (a CQL identifier, checked by src/config/config.ts). */
export const tablesIn = (keyspace: string) => ({
  devices: `${keyspace}.devices`,
  names: `${keyspace}.device_names`,
  shadows: `${keyspace}.shadows`,
  pending: `${keyspace}.pending_outboxes`,
  schemas: `${keyspace}.schemas`,
  triggers: `${keyspace}.triggers`,
  hooks: `${keyspace}.event_hooks`,
  deliveries: `${keyspace}.deliveries`,
  deliveriesByDevice: `${keyspace}.deliveries_by_device`,
  quotaLimits: `${keyspace}.quota_limits`,
  quotaLedger: `${keyspace}.quota_ledger`,
  signingKeys: `${keyspace}.signing_keys`,
  revokedTokens: `${keyspace}.revoked_tokens`,
  nodes: `${keyspace}.nodes`,
  migrations: `${keyspace}.migrations`,
  operators: `${keyspace}.operators`,
  auditLog: `${keyspace}.audit_log`,
  applications: `${keyspace}.applications`,
  desired: `${keyspace}.desired`,
  datatags: `${keyspace}.datatags`,
  projectRetention: `${keyspace}.project_retention`,
  shadowRevisions: `${keyspace}.shadow_revisions`,
  rollups: `${keyspace}.rollups`,
});

/** How long an entry of the delivery log is kept (the tables' default TTL): 7 days. */
export const DELIVERY_TTL_SECONDS = 7 * 24 * 3600;

export type CassandraTables = ReturnType<typeof tablesIn>;

function replicationMap(replication: CassandraReplication): string {
  if (typeof replication === 'number') return `{'class': 'SimpleStrategy', 'replication_factor': ${replication}}`;
  const dcs = Object.entries(replication).map(([dc, n]) => `'${dc.replaceAll("'", "''")}': ${n}`);
  return `{'class': 'NetworkTopologyStrategy', ${dcs.join(', ')}}`;
}

/**
 * The data model (docs/production.md "Production backends: Cassandra"), one table per way it is read:
 *
 * - `devices`: the registry, one row per device, read on every authenticated request. `devices_by_token`, a Storage
 *   Attached Index (Cassandra 5) on its token, finds a device by token alone (an MQTT CONNECT without a ClientID).
 *   Each node indexes its own rows as part of writing them, so the index follows every token rotation and deletion
 *   with no write of ours, and indexes the rows of a registry made before it existed. A look-up asks the nodes of
 *   every token range, not one replica set: dearer than a read by device id, fine for a connection's first packet;
 *   a lookup table keyed by token would be one partition read, but could not change in the same lightweight
 *   transaction as the device (Cassandra's conditional batches stay in one partition), and would need a backfill.
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
 *
 * The state every node must share (issue 14), each small and read through the nodes' caches (src/cluster):
 *
 * - `schemas`, `triggers`, `event_hooks`: one row per schema owner, device, hook; the body as JSON, decoded when read.
 * - `datatags`: one partition per owner (a device or a group default), one row per tag by its attr; JSON as above.
 * - `deliveries`, `deliveries_by_device`: the delivery log, by project and by device, one partition per UTC day so
 *   that no partition grows without end, rows expiring after DELIVERY_TTL_SECONDS.
 * - `quota_limits`: the limits of each project. `quota_ledger`: per project and month, one row per quota and node,
 *   with what the node charged (`used`, written by that node only, as an absolute value: retries are harmless) and
 *   what it was granted (`granted`, a block of the limit); `version` (static) makes every grant a compare-and-set
 *   over the whole partition. See cassandra-quota-store.ts and src/quotas/service.ts.
 * - `signing_keys`: the key that signs user tokens, created once (IF NOT EXISTS).
 * - `revoked_tokens`: user tokens refused before they expire, by `jti`, each row with a TTL that ends with the token
 *   (cassandra-revoked-tokens.ts).
 * - `nodes`: the running nodes, each row kept alive by its node's heartbeat (a TTL), so two nodes never share a
 *   NODE_ID (src/cluster/node-registration.ts).
 * - `operators`: operator accounts (issue 20 §5), one row each, the key as its keyed digest. `audit_log`: every admin
 *   change, one partition per UTC day, each row written with a TTL of AUDIT_RETENTION_DAYS.
 * - `applications`: application keys (issue 22), one row each, the secret as its keyed digest; read by key at every
 *   log-in, listed by project through `applications_by_project`, a Storage Attached Index on `projectid`.
 * - `migrations`: the named data migrations done, such as `credential-digests` (issue 20 §1): `token` and `secret` of
 *   `devices` hold keyed digests, or plaintexts written by an older release until that migration is done.
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
    `CREATE CUSTOM INDEX IF NOT EXISTS devices_by_token ON ${t.devices} ("token") USING 'StorageAttachedIndex'`,
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
    `CREATE TABLE IF NOT EXISTS ${t.schemas} (owner text PRIMARY KEY, body text)`,
    `CREATE TABLE IF NOT EXISTS ${t.triggers} (deviceid text PRIMARY KEY, body text)`,
    `CREATE TABLE IF NOT EXISTS ${t.hooks} (projectid text, name text, body text, PRIMARY KEY ((projectid), name))`,
    `CREATE TABLE IF NOT EXISTS ${t.deliveries} (
       projectid text, day int, id timeuuid, body text,
       PRIMARY KEY ((projectid, day), id)
     ) WITH CLUSTERING ORDER BY (id DESC) AND default_time_to_live = ${DELIVERY_TTL_SECONDS}`,
    `CREATE TABLE IF NOT EXISTS ${t.deliveriesByDevice} (
       projectid text, deviceid text, day int, id timeuuid, body text,
       PRIMARY KEY ((projectid, deviceid, day), id)
     ) WITH CLUSTERING ORDER BY (id DESC) AND default_time_to_live = ${DELIVERY_TTL_SECONDS}`,
    `CREATE TABLE IF NOT EXISTS ${t.quotaLimits} (projectid text PRIMARY KEY, body text)`,
    `CREATE TABLE IF NOT EXISTS ${t.quotaLedger} (
       projectid text, month text, quota text, node text,
       used bigint, granted bigint, version bigint static,
       PRIMARY KEY ((projectid, month), quota, node)
     )`,
    `CREATE TABLE IF NOT EXISTS ${t.signingKeys} (name text PRIMARY KEY, jwk text)`,
    `CREATE TABLE IF NOT EXISTS ${t.revokedTokens} (jti text PRIMARY KEY, expires bigint)`,
    `CREATE TABLE IF NOT EXISTS ${t.nodes} (
       node_id text PRIMARY KEY, incarnation uuid, host text, pid int, started bigint, heartbeat bigint
     )`,
    // Named data migrations done in this keyspace (cassandra-credential-migration.ts), each recorded once it is done.
    `CREATE TABLE IF NOT EXISTS ${t.migrations} (name text PRIMARY KEY, done bigint, by_node text)`,
    // Operator accounts and the audit log of admin changes (issue 20 §5; cassandra-operator-store.ts, cassandra-audit-log.ts).
    `CREATE TABLE IF NOT EXISTS ${t.operators} (name text PRIMARY KEY, role text, projects text, created bigint, key_digest text)`,
    `CREATE TABLE IF NOT EXISTS ${t.auditLog} (
       day int, at timeuuid, actor text, body text,
       PRIMARY KEY ((day), at)
     ) WITH CLUSTERING ORDER BY (at DESC)`,
    // Application keys (issue 22; cassandra-application-store.ts); `group_ids` is a JSON array.
    `CREATE TABLE IF NOT EXISTS ${t.applications} (
       app_key text PRIMARY KEY, name text, projectid text, group_ids text, enabled boolean, secret text, created bigint
     )`,
    `CREATE CUSTOM INDEX IF NOT EXISTS applications_by_project ON ${t.applications} (projectid) USING 'StorageAttachedIndex'`,
    // Datatags (issue 23 §1; cassandra-datatag-store.ts): one partition per owner (a device or a group default).
    `CREATE TABLE IF NOT EXISTS ${t.datatags} (owner text, attr text, body text, PRIMARY KEY ((owner), attr))`,
    // A project's own retention of points, in ms (issue 23 §2; cassandra-project-retention-store.ts).
    `CREATE TABLE IF NOT EXISTS ${t.projectRetention} (projectid text PRIMARY KEY, retention_ms bigint)`,
    // Shadow history (issue 25 §3; cassandra-shadow-history.ts): one partition per device, newest first, each row
    // with a TTL of its project's retention; written after the shadow's commit, keyed so that a retry is harmless.
    `CREATE TABLE IF NOT EXISTS ${t.shadowRevisions} (
       deviceid text, modified bigint, rev bigint, data_time bigint, data text,
       PRIMARY KEY ((deviceid), modified, rev)
     ) WITH CLUSTERING ORDER BY (modified DESC, rev DESC)`,
    // Desired documents (issue 25 §2; cassandra-desired-store.ts): one row per device, written with compare-and-set
    // on `rev`, deleted with the device (cassandra-device-store.ts).
    `CREATE TABLE IF NOT EXISTS ${t.desired} (deviceid text PRIMARY KEY, data text, rev bigint, modified bigint)`,
    // Roll-up declarations (issue 23 §3; cassandra-rollup-store.ts): `tiers` is JSON, `built_at` null until built.
    `CREATE TABLE IF NOT EXISTS ${t.rollups} (projectid text PRIMARY KEY, tiers text, declared_at bigint, built_at bigint)`,
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

import type Database from 'better-sqlite3';
import { join } from 'node:path';
import { openMigratedSqlite } from './sqlite-open';

/** Schema migrations, applied in order; `PRAGMA user_version` remembers how many ran. */
const MIGRATIONS = [
  `CREATE TABLE devices (
     deviceid TEXT PRIMARY KEY,
     token TEXT NOT NULL,
     secret TEXT NOT NULL,
     alias TEXT NOT NULL,
     groupid TEXT NOT NULL,
     projectid TEXT NOT NULL,
     enabled INTEGER NOT NULL,
     banned INTEGER NOT NULL,
     description TEXT NOT NULL,
     livenessttl INTEGER NOT NULL,
     created INTEGER NOT NULL,
     UNIQUE (projectid, groupid, alias)
   );
   CREATE INDEX devices_by_project_alias ON devices (projectid, alias);
   CREATE TABLE shadows (
     deviceid TEXT PRIMARY KEY REFERENCES devices (deviceid) ON DELETE CASCADE,
     data TEXT NOT NULL,
     rev INTEGER NOT NULL,
     modified INTEGER NOT NULL,
     timestamp INTEGER NOT NULL
   );`,
  // One row per committed write: its points as a JSON array, waiting for the time-series store.
  `CREATE TABLE point_outbox (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     points TEXT NOT NULL
   );`,
  // Shadow schemas (issue 5 §3): a device's own or a group's default; the body is the schema JSON. No foreign key to
  // devices: with STORE=cassandra the registry is not here. A deleted device's rows stay, and apply again should its
  // id be registered anew (ids can be given, issue 18: docs/moving-from-netpie.md "Reused ids").
  `CREATE TABLE schemas (
     owner TEXT PRIMARY KEY,
     deviceid TEXT,
     body TEXT NOT NULL
   );`,
  // Quotas (issue 5 §5): limits per project (JSON, absent quota = unlimited) and counters per project, month, quota.
  `CREATE TABLE quota_limits (
     projectid TEXT PRIMARY KEY,
     body TEXT NOT NULL
   );
   CREATE TABLE quota_usage (
     projectid TEXT NOT NULL,
     month TEXT NOT NULL,
     quota TEXT NOT NULL,
     used INTEGER NOT NULL,
     PRIMARY KEY (projectid, month, quota)
   );`,
  // Triggers of a device (no foreign key, as for schemas), event hooks of a project, and the delivery log.
  `CREATE TABLE triggers (
     deviceid TEXT PRIMARY KEY,
     body TEXT NOT NULL
   );
   CREATE TABLE event_hooks (
     projectid TEXT NOT NULL,
     name TEXT NOT NULL,
     body TEXT NOT NULL,
     PRIMARY KEY (projectid, name)
   );
   CREATE TABLE deliveries (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     projectid TEXT NOT NULL,
     deviceid TEXT NOT NULL,
     body TEXT NOT NULL
   );
   CREATE INDEX deliveries_by_project ON deliveries (projectid, id);
   CREATE INDEX deliveries_by_device ON deliveries (projectid, deviceid, id);`,
  // A device found by its token alone: an MQTT CONNECT without a ClientID (issue 17). IF NOT EXISTS: an index of
  // this name made by hand on an existing database does not stop the migration.
  `CREATE INDEX IF NOT EXISTS devices_by_token ON devices (token);`,
  // User tokens revoked before they expire, by `jti` (issue 20 §6); rows past `expires` are pruned (sqlite-revoked-tokens.ts).
  // IF NOT EXISTS, as above: a test rewinds a database to before the index, and this runs again after it.
  `CREATE TABLE IF NOT EXISTS revoked_tokens (
     jti TEXT PRIMARY KEY,
     expires INTEGER NOT NULL
   );`,
  // Operator accounts and the audit log of admin changes (issue 20 §5): sqlite-operator-store.ts, sqlite-audit-log.ts.
  `CREATE TABLE IF NOT EXISTS operators (
     name TEXT PRIMARY KEY,
     role TEXT NOT NULL,
     projects TEXT NOT NULL,
     created INTEGER NOT NULL,
     key_digest TEXT NOT NULL
   );
   CREATE TABLE IF NOT EXISTS audit_log (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     at INTEGER NOT NULL,
     actor TEXT NOT NULL,
     body TEXT NOT NULL
   );
   CREATE INDEX IF NOT EXISTS audit_log_by_time ON audit_log (at);
   CREATE INDEX IF NOT EXISTS audit_log_by_actor ON audit_log (actor, at);`,
  // Application keys (issue 22): sqlite-application-store.ts. `secret` holds the keyed digest, `group_ids` a JSON array.
  `CREATE TABLE IF NOT EXISTS applications (
     app_key TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     projectid TEXT NOT NULL,
     group_ids TEXT NOT NULL,
     enabled INTEGER NOT NULL,
     secret TEXT NOT NULL,
     created INTEGER NOT NULL
   );
   CREATE INDEX IF NOT EXISTS applications_by_project ON applications (projectid, created);`,
  // Datatags (issue 23 §1) of a device or a group default, one row per tag; `body` is the tag's JSON. No foreign key,
  // as for schemas: sqlite-datatag-store.ts.
  `CREATE TABLE IF NOT EXISTS datatags (
     owner TEXT NOT NULL,
     attr TEXT NOT NULL,
     body TEXT NOT NULL,
     PRIMARY KEY (owner, attr)
   );`,
  // Shadow history (issue 25 §3): the document each committed write left, until `expires` (NULL: until the device
  // goes). Read newest first by time (sqlite-shadow-history.ts); expired rows are swept by later shadow commits.
  `CREATE TABLE IF NOT EXISTS shadow_revisions (
     deviceid TEXT NOT NULL REFERENCES devices (deviceid) ON DELETE CASCADE,
     rev INTEGER NOT NULL,
     modified INTEGER NOT NULL,
     timestamp INTEGER NOT NULL,
     data TEXT NOT NULL,
     expires INTEGER,
     PRIMARY KEY (deviceid, rev)
   );
   CREATE INDEX IF NOT EXISTS shadow_revisions_by_time ON shadow_revisions (deviceid, modified, rev);
   CREATE INDEX IF NOT EXISTS shadow_revisions_by_expiry ON shadow_revisions (expires) WHERE expires IS NOT NULL;`,
  // A project's own retention of points, in ms (issue 23 §2): sqlite-project-retention-store.ts.
  `CREATE TABLE IF NOT EXISTS project_retention (
     projectid TEXT PRIMARY KEY,
     retention_ms INTEGER NOT NULL
   );`,
  // Desired documents (issue 25 §2; sqlite-desired-store.ts), one row per device, deleted with it.
  `CREATE TABLE IF NOT EXISTS desired (
     deviceid TEXT PRIMARY KEY REFERENCES devices (deviceid) ON DELETE CASCADE,
     data TEXT NOT NULL,
     rev INTEGER NOT NULL,
     modified INTEGER NOT NULL
   );`,
  // Roll-up declarations (issue 23 §3; sqlite-rollup-store.ts): `tiers` is JSON, `built_at` NULL until built.
  `CREATE TABLE IF NOT EXISTS rollups (
     projectid TEXT PRIMARY KEY,
     tiers TEXT NOT NULL,
     declared_at INTEGER NOT NULL,
     built_at INTEGER
   );`,
];

/** Opens (and creates or migrates) the registry, shadow and outbox database, DATA_DIR/openpie.db. */
export function openSqliteDatabase(dataDir: string): Database.Database {
  return openMigratedSqlite(join(dataDir, 'openpie.db'), MIGRATIONS);
}

import type Database from 'better-sqlite3';
import { join } from 'node:path';
import { openMigratedSqlite } from './sqlite-open';

/**
 * MQTT session state (src/sessions/port.ts) in a database of its own, DATA_DIR/sessions.db: queues churn far more than
 * the registry does, and this file can be dropped alone to forget every session. Packets and subscription records are
 * V8-serialized (sessions/packet-codec.ts).
 */
const MIGRATIONS = [
  // Subscriptions keep their rowid across an update (ON CONFLICT DO UPDATE), so a client's list stays in the order it
  // subscribed. Topics are matched against a trie in memory (sqlite-session-store.ts), not here.
  `CREATE TABLE subscriptions (
     client_id TEXT NOT NULL,
     topic TEXT NOT NULL,
     qos INTEGER NOT NULL,
     record BLOB NOT NULL,
     PRIMARY KEY (client_id, topic)
   );
   CREATE INDEX subscriptions_by_topic ON subscriptions (topic);
   CREATE TABLE outgoing (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     client_id TEXT NOT NULL,
     broker_id TEXT,
     broker_counter INTEGER,
     message_id INTEGER,
     cmd TEXT NOT NULL,
     packet BLOB NOT NULL
   );
   CREATE INDEX outgoing_by_client ON outgoing (client_id, seq);
   CREATE INDEX outgoing_by_message ON outgoing (client_id, broker_id, broker_counter);
   CREATE INDEX outgoing_by_packet_id ON outgoing (client_id, message_id);
   CREATE TABLE queue_sizes (
     client_id TEXT PRIMARY KEY,
     size INTEGER NOT NULL
   ) WITHOUT ROWID;
   CREATE TRIGGER outgoing_counted AFTER INSERT ON outgoing WHEN new.cmd = 'publish' BEGIN
     INSERT INTO queue_sizes (client_id, size) VALUES (new.client_id, 1)
       ON CONFLICT (client_id) DO UPDATE SET size = size + 1;
   END;
   CREATE TRIGGER outgoing_uncounted AFTER DELETE ON outgoing WHEN old.cmd = 'publish' BEGIN
     UPDATE queue_sizes SET size = size - 1 WHERE client_id = old.client_id;
   END;
   CREATE TRIGGER outgoing_released AFTER UPDATE OF cmd ON outgoing WHEN old.cmd = 'publish' AND new.cmd <> 'publish' BEGIN
     UPDATE queue_sizes SET size = size - 1 WHERE client_id = old.client_id;
   END;
   CREATE TABLE incoming (
     client_id TEXT NOT NULL,
     message_id INTEGER NOT NULL,
     packet BLOB NOT NULL,
     PRIMARY KEY (client_id, message_id)
   ) WITHOUT ROWID;
   CREATE TABLE retained (
     topic TEXT PRIMARY KEY,
     packet BLOB NOT NULL
   ) WITHOUT ROWID;
   CREATE TABLE wills (
     client_id TEXT PRIMARY KEY,
     broker_id TEXT NOT NULL,
     stored_at INTEGER NOT NULL,
     packet BLOB NOT NULL
   ) WITHOUT ROWID;
   CREATE TABLE sessions (
     client_id TEXT PRIMARY KEY,
     touched_at INTEGER NOT NULL,
     dropped INTEGER NOT NULL DEFAULT 0
   ) WITHOUT ROWID;
   CREATE INDEX sessions_by_age ON sessions (touched_at);`,
  // MQTT 5 timers (sessions/port.ts "MQTT 5 timers"): a disconnected session's deadline; while connected, the broker
  // run that holds it and its Session Expiry Interval, for when that run crashes; a will's due time. The sweeps read
  // only the rows that have one, through partial indexes.
  `ALTER TABLE sessions ADD COLUMN expires_at INTEGER;
   ALTER TABLE sessions ADD COLUMN held_by TEXT;
   ALTER TABLE sessions ADD COLUMN expiry_ms INTEGER;
   CREATE INDEX sessions_by_deadline ON sessions (expires_at) WHERE expires_at IS NOT NULL;
   CREATE INDEX sessions_by_holder ON sessions (held_by) WHERE held_by IS NOT NULL;
   ALTER TABLE wills ADD COLUMN due_at INTEGER;
   CREATE INDEX wills_by_due ON wills (due_at) WHERE due_at IS NOT NULL;`,
];

/** Opens (creating or migrating it) the session database in `file`. */
export const openSessionDatabase = (file: string): Database.Database => openMigratedSqlite(file, MIGRATIONS);

/** Where the embedded session store lives in DATA_DIR. */
export const sessionDatabaseFile = (dataDir: string) => join(dataDir, 'sessions.db');

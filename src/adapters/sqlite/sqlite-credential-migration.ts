import type { Database } from 'better-sqlite3';
import { CredentialKey } from '../../devices/credential-key';
import { DIGEST_PREFIX, isKeptDigest, keyIdOf } from '../../devices/credentials';
import { CredentialMigration, CredentialMigrationStatus } from '../../devices/port';

const NAME = 'credential-digests';

/** Rows a release before issue 20 wrote: `token` or `secret` in plaintext (a digest has a `:`, a device key never). */
const PLAINTEXT = `(instr(token, ':') = 0 OR instr(secret, ':') = 0)`;

/**
 * Named data migrations of the SQLite registry: each recorded in `migrations` once done, so a later change of a stored
 * format adds its own name beside this one. Schema changes stay numbered (sqlite-database.ts, PRAGMA user_version).
 */
function ensureMigrationsTable(db: Database): void {
  db.exec('CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, done INTEGER NOT NULL)');
}

/**
 * `credential-digests` (issue 20 §1): every token and secret an older release kept in plaintext becomes its keyed
 * digest, in one transaction. Idempotent: a row already digested is left as it is. One node owns a SQLite file, so
 * the service runs it at every start (compose/store-backend.ts); nothing is left for an older release to read.
 */
export function createSqliteCredentialMigration(db: Database, key: CredentialKey): CredentialMigration {
  ensureMigrationsTable(db);
  const countPlaintext = db.prepare(`SELECT count(*) FROM devices WHERE ${PLAINTEXT}`).pluck();
  const plaintextRows = db.prepare(`SELECT deviceid, token, secret FROM devices WHERE ${PLAINTEXT}`);
  const rewrite = db.prepare('UPDATE devices SET token = ?, secret = ? WHERE deviceid = ? AND token = ? AND secret = ?');
  const isDone = db.prepare('SELECT count(*) FROM migrations WHERE name = ?').pluck();
  const markDone = db.prepare('INSERT OR IGNORE INTO migrations (name, done) VALUES (?, ?)');
  const keep = (kept: string) => (isKeptDigest(kept) ? kept : key.digest(kept));

  const status = (): CredentialMigrationStatus => ({
    name: NAME,
    done: (isDone.get(NAME) as number) === 1,
    plaintextDevices: countPlaintext.get() as number,
  });

  const complete = db.transaction(() => {
    let rewritten = 0;
    for (const row of plaintextRows.all() as { deviceid: string; token: string; secret: string }[]) {
      rewritten += rewrite.run(keep(row.token), keep(row.secret), row.deviceid, row.token, row.secret).changes;
    }
    markDone.run(NAME, Date.now());
    return rewritten;
  });

  return {
    status: async () => status(),
    complete: async () => {
      // The plaintexts overwritten are zeroed in their pages too, not left in free space for a copy of the file to show.
      if ((countPlaintext.get() as number) > 0) db.pragma('secure_delete = ON');
      return { rewritten: complete(), ...status() };
    },
  };
}

/**
 * Refuses to start with a key other than the one the registry's digests were made with: every device would be refused
 * (a lost or swapped CREDENTIAL_KEY_FILE), and saying so at start beats a fleet of failed connections.
 */
export function checkSqliteCredentialKey(db: Database, key: CredentialKey): void {
  const ours = `${DIGEST_PREFIX}${key.id}:`;
  const other = db
    .prepare(`SELECT token FROM devices WHERE instr(token, ':') > 0 AND substr(token, 1, ?) != ? LIMIT 1`)
    .pluck()
    .get(ours.length, ours) as string | undefined;
  if (other !== undefined) {
    throw new Error(`the registry's credentials were digested with credential key ${keyIdOf(other)}, but ` +
      `CREDENTIAL_KEY_FILE holds key ${key.id}: start with the key file these devices were registered with`);
  }
}

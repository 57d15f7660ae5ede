import type { Database } from 'better-sqlite3';
import { RevokedTokens } from '../../tokens/port';

/**
 * Revoked user tokens in `revoked_tokens` of the service's database (sqlite-database.ts), one row per `jti`. Revoking
 * is rare (an operator's command), so each one also deletes the rows whose token has expired: the table holds only
 * revocations that still matter, without a timer.
 */
export function createSqliteRevokedTokens(db: Database, now: () => number = Date.now): RevokedTokens {
  const prune = db.prepare('DELETE FROM revoked_tokens WHERE expires <= ?');
  const upsert = db.prepare(
    'INSERT INTO revoked_tokens (jti, expires) VALUES (?, ?) ON CONFLICT (jti) DO UPDATE SET expires = excluded.expires',
  );
  const select = db.prepare('SELECT 1 FROM revoked_tokens WHERE jti = ? AND expires > ?');
  const record = db.transaction((jti: string, expiresAt: number) => {
    prune.run(now());
    upsert.run(jti, expiresAt);
  });
  return {
    async revoke(jti, expiresAt) {
      record(jti, expiresAt);
    },
    async isRevoked(jti) {
      return select.get(jti, now()) !== undefined;
    },
  };
}

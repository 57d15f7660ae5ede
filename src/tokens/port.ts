import type { JWK } from 'jose';

/** Where the private key that signs user tokens lives (an ES256 JWK): a file (STORE=sqlite) or the shared store. */
export interface SigningKeyStore {
  /** The key, or undefined before the first start made one. */
  read(): Promise<JWK | undefined>;
  /** Stores `key` unless a key is there already, and answers the key that is there now (of two nodes, one wins). */
  create(key: JWK): Promise<JWK>;
  /** Replaces the key (rotation). */
  replace(key: JWK): Promise<void>;
}

/**
 * User tokens refused before they expire, by their `jti` (issue 20 §6): in the service's SQLite database, or shared
 * by every node in Cassandra. A revocation is only needed until the token would expire anyway, so each is kept until
 * `expiresAt` and then forgotten (a Cassandra TTL; SQLite prunes expired rows as it records new ones).
 */
export interface RevokedTokens {
  /** Refuses `jti` until `expiresAt` (epoch ms); idempotent: revoking it again records the new `expiresAt`. */
  revoke(jti: string, expiresAt: number): Promise<void>;
  /** Whether `jti` is revoked and its revocation not yet past `expiresAt`. */
  isRevoked(jti: string): Promise<boolean>;
}

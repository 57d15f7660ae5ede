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

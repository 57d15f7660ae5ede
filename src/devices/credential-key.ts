import { createHmac, KeyObject, createSecretKey, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { CredentialKey, DIGEST_PREFIX, isKeptDigest, secretMatches, secretDigest } from './credentials';

/** Bytes of a credential key: 256 random bits, the size of the HMAC-SHA-256 output. */
const KEY_BYTES = 32;
/** Bytes of an HMAC-SHA-256. */
const MAC_BYTES = 32;
/** What a digest of another key (or a malformed one) is compared with, so that its answer takes the same time. */
const NO_MAC = Buffer.alloc(MAC_BYTES);

/**
 * Device tokens and secrets are kept as keyed digests (issue 20 §1). They are long random keys, not passwords a person
 * picks, so a keyed digest (HMAC-SHA-256) protects them at rest without a slow hash on every connect: whoever copies the
 * database without this key can neither use nor guess them. The key is kept apart from the data (a file), and is the
 * same on every node of a cluster (digests made with another key never match).
 */
export type { CredentialKey };

export function createCredentialKey(secret: Buffer): CredentialKey {
  if (secret.length < KEY_BYTES) throw new Error(`a credential key has at least ${KEY_BYTES} bytes`);
  const key: KeyObject = createSecretKey(secret);
  const id = createHmac('sha256', key).update('openpie credential key id').digest('base64url').slice(0, 8);
  const mac = (credential: string) => createHmac('sha256', key).update(credential).digest();
  const prefix = `${DIGEST_PREFIX}${id}:`;
  return {
    id,
    digest: (credential) => `${prefix}${mac(credential).toString('base64url')}`,
    matches(given, kept) {
      if (!isKeptDigest(kept)) return secretMatches(given, secretDigest(kept));
      // One HMAC, compared with the kept one in constant time (both 32 bytes). Another key's digest, or a malformed
      // one, is compared all the same, with NO_MAC, and never matches.
      const keptMac = kept.startsWith(prefix) ? Buffer.from(kept.slice(prefix.length), 'base64url') : undefined;
      const usable = keptMac?.length === MAC_BYTES;
      const same = timingSafeEqual(mac(given), usable ? keptMac : NO_MAC);
      return same && usable;
    },
  };
}

/**
 * The key kept in `file` (CREDENTIAL_KEY_FILE): 32 random bytes in base64url on one line. Made on first start with mode
 * 0600 when `createIfMissing` (one node: DATA_DIR/credential-key); a cluster's nodes are given one file, copied to
 * each (docs/production.md "Credential key").
 */
export function loadCredentialKey(file: string, { createIfMissing }: { createIfMissing: boolean }): { key: CredentialKey; created: boolean } {
  if (existsSync(file)) return { key: readKey(file), created: false };
  if (!createIfMissing) throw new Error(`${file}: no credential key (CREDENTIAL_KEY_FILE); every node of a cluster needs the same one`);
  const secret = randomBytes(KEY_BYTES);
  // Written whole beside the file, then linked into place, which fails when it exists: of two processes starting at
  // once on one file (two nodes on one shared volume), the second reads the first one's key, never half of it.
  const draft = `${file}.${process.pid}.${secret.subarray(0, 4).toString('hex')}`;
  writeFileSync(draft, `${secret.toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(draft, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return { key: readKey(file), created: false };
  } finally {
    unlinkSync(draft);
  }
  return { key: createCredentialKey(secret), created: true };
}

function readKey(file: string): CredentialKey {
  const secret = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
  if (secret.length < KEY_BYTES) throw new Error(`${file}: a credential key is ${KEY_BYTES} random bytes in base64url`);
  return createCredentialKey(secret);
}

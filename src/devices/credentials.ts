import { hash, randomInt, timingSafeEqual } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** 32 alphanumeric characters, as NETPIE's own keys look (about 190 bits from crypto.randomInt). */
export function generateKey(length = 32): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

/**
 * The service key that device tokens and secrets are digested with before they are stored (issue 20 §1); loaded by
 * devices/credential-key.ts, which says why a keyed digest.
 */
export interface CredentialKey {
  /** 8 characters naming the key inside every digest, so a node with another key is told at start, not by refusals. */
  readonly id: string;
  /** The kept form of a credential: `hmac-sha256:<id>:<43 base64url characters>`. */
  digest(credential: string): string;
  /**
   * Whether `given` is the credential kept as `kept`, in constant time whatever their lengths: `kept` is a digest of
   * this key, or a plaintext an older release kept (issue 20 §1, rolling upgrades). A digest of another key matches
   * nothing.
   */
  matches(given: string, kept: string): boolean;
}

/** The prefix of every kept digest (credential-key.ts); device keys have no `:` (codecs.ts DeviceKey), plaintexts never. */
export const DIGEST_PREFIX = 'hmac-sha256:';

/** True for a device credential kept as a digest; false for one an older release kept in plaintext. */
export const isKeptDigest = (kept: string): boolean => kept.startsWith(DIGEST_PREFIX);

/**
 * Whether a given token may be looked up as an older release kept it (in plaintext): never anything with a `:`, or
 * whoever read a digest from a copy of the database could present the digest as the token.
 */
export const mayBeKeptPlaintext = (token: string): boolean => !token.includes(':');

/** The id of the key a kept digest was made with, or undefined for a plaintext. */
export const keyIdOf = (kept: string): string | undefined => (isKeptDigest(kept) ? kept.split(':')[1] : undefined);

/** The SHA-256 of a secret, for `secretMatches`: what a caller can keep instead of hashing the same secret again. */
export const secretDigest = (secret: string): Buffer => hash('sha256', secret, 'buffer');

/** Compares a secret with the digest of the expected one in constant time, whatever their lengths. */
export const secretMatches = (given: string, expectedDigest: Buffer): boolean => timingSafeEqual(secretDigest(given), expectedDigest);

/** Compares secrets (the admin and metrics tokens) in constant time, whatever their lengths (both are hashed first). */
export function secretsEqual(given: string, expected: string): boolean {
  return secretMatches(given, secretDigest(expected));
}

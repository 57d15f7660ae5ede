import { hash, randomInt, timingSafeEqual } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** 32 alphanumeric characters, as NETPIE's own keys look (about 190 bits from crypto.randomInt). */
export function generateKey(length = 32): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

/** The SHA-256 of a secret, for `secretMatches`: what a caller can keep instead of hashing the same secret again. */
export const secretDigest = (secret: string): Buffer => hash('sha256', secret, 'buffer');

/** Compares a secret with the digest of the expected one in constant time, whatever their lengths. */
export const secretMatches = (given: string, expectedDigest: Buffer): boolean => timingSafeEqual(secretDigest(given), expectedDigest);

/** Compares secrets in constant time, whatever their lengths (both sides are hashed to equal size first). */
export function secretsEqual(given: string, expected: string): boolean {
  return secretMatches(given, secretDigest(expected));
}

/**
 * ECDSA signatures come in pairs: if (r, s) verifies, so does (r, n - s). A JWT whose signature is swapped for its
 * twin is the same claims under a different string, which defeats anything keyed on the token's text (a revocation
 * list, a cache, a log search). As Bitcoin (BIP 62) and Ethereum (EIP-2) do, only the low form (s <= n/2) is valid
 * (issue 20 §6): tokens are signed in it and the high twin is refused.
 */

/** The order n of the P-256 group (SEC 2 §2.4.2; FIPS 186-4 D.1.2.3). */
const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const HALF_ORDER = P256_ORDER >> 1n;
/** An ES256 JWS signature is r and s, 32 bytes each, big-endian (RFC 7518 §3.4). */
const SCALAR_BYTES = 32;

const scalarOf = (bytes: Buffer): bigint => BigInt(`0x${bytes.toString('hex') || '0'}`);
const bytesOf = (n: bigint): Buffer => Buffer.from(n.toString(16).padStart(SCALAR_BYTES * 2, '0'), 'hex');

/** The signature part of a compact JWS, or undefined when it is not one of 64 bytes. */
function signatureOf(jws: string): Buffer | undefined {
  const parts = jws.split('.');
  if (parts.length !== 3) return undefined;
  const signature = Buffer.from(parts[2], 'base64url');
  return signature.length === 2 * SCALAR_BYTES ? signature : undefined;
}

/** True when a compact ES256 JWS carries the low form of its signature. */
export function hasLowS(jws: string): boolean {
  const signature = signatureOf(jws);
  return signature !== undefined && scalarOf(signature.subarray(SCALAR_BYTES)) <= HALF_ORDER;
}

/** The same compact ES256 JWS with its signature in the low form (node's ECDSA picks either). */
export function withLowS(jws: string): string {
  const signature = signatureOf(jws);
  if (signature === undefined) throw new Error('not an ES256 compact JWS');
  const s = scalarOf(signature.subarray(SCALAR_BYTES));
  if (s <= HALF_ORDER) return jws;
  const low = Buffer.concat([signature.subarray(0, SCALAR_BYTES), bytesOf(P256_ORDER - s)]);
  return `${jws.slice(0, jws.lastIndexOf('.'))}.${low.toString('base64url')}`;
}

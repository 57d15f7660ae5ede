import { exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type JWK } from 'jose';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomUUID } from 'node:crypto';

/** Issuer and algorithm of NETPIE's own user tokens (netpie reference §2: ES256, `iss: cer:usertoken`). */
const ISSUER = 'cer:usertoken';
const ALG = 'ES256';

export interface UserTokenClaims {
  projectid: string;
  expires: number;
}

export interface UserTokens {
  issue(projectid: string, ttlSeconds: number): Promise<{ token: string; expires: number }>;
  /** The token's project, or undefined when the token is malformed, forged or expired. */
  verify(token: string): Promise<UserTokenClaims | undefined>;
}

/**
 * Signed bearer tokens scoped to one project, for the data-store API. The signing key is kept in `keyFile` (mode
 * 0600; USER_TOKEN_KEY_FILE), made on first start, so tokens survive restarts; nodes that share the file accept each
 * other's tokens. Two nodes starting at once on a new shared file: the first to create it wins, the other reads it.
 */
export async function createUserTokens(keyFile: string): Promise<UserTokens> {
  if (!existsSync(keyFile)) {
    const { privateKey: fresh } = await generateKeyPair(ALG, { extractable: true });
    mkdirSync(dirname(keyFile), { recursive: true });
    try {
      writeFileSync(keyFile, JSON.stringify(await exportJWK(fresh)), { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  const jwk = JSON.parse(readFileSync(keyFile, 'utf8')) as JWK;
  const privateKey = await importJWK(jwk, ALG);
  const publicKey = await importJWK({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }, ALG);

  return {
    async issue(projectid, ttlSeconds) {
      const now = Math.floor(Date.now() / 1000);
      const token = await new SignJWT({ ctx: { projectid }, scope: [`project:${projectid}`] })
        .setProtectedHeader({ alg: ALG, typ: 'JWT' })
        .setIssuer(ISSUER)
        .setIssuedAt(now)
        .setNotBefore(now)
        .setExpirationTime(now + ttlSeconds)
        .setJti(randomUUID())
        .sign(privateKey);
      return { token, expires: (now + ttlSeconds) * 1000 };
    },
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, publicKey, { issuer: ISSUER, algorithms: [ALG] });
        const projectid = (payload.ctx as { projectid?: unknown } | undefined)?.projectid;
        if (typeof projectid !== 'string' || typeof payload.exp !== 'number') return undefined;
        return { projectid, expires: payload.exp * 1000 };
      } catch {
        return undefined;
      }
    },
  };
}

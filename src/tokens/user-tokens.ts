import { exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type JWK } from 'jose';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
 * Signed bearer tokens scoped to one project, for the data-store API. The signing key is made on first start and
 * kept in DATA_DIR (mode 0600), so tokens survive restarts.
 */
export async function createUserTokens(dataDir: string): Promise<UserTokens> {
  const file = join(dataDir, 'user-token-key.json');
  if (!existsSync(file)) {
    const { privateKey } = await generateKeyPair(ALG, { extractable: true });
    writeFileSync(file, JSON.stringify(await exportJWK(privateKey)), { mode: 0o600, flag: 'wx' });
  }
  const jwk = JSON.parse(readFileSync(file, 'utf8')) as JWK;
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

import {
  calculateJwkThumbprint,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
  SignJWT,
  type CryptoKey,
  type JWK,
} from 'jose';
import { randomUUID } from 'node:crypto';
import { ChangeFeed, silentChangeFeed } from '../cluster/port';
import { AppError } from '../core/errors';
import { hasLowS, withLowS } from './low-s';
import { RevokedTokens, SigningKeyStore } from './port';

/** Issuer and algorithm of NETPIE's own user tokens (netpie reference §2: ES256, `iss: cer:usertoken`). */
const ISSUER = 'cer:usertoken';
const ALG = 'ES256';
/** A token naming a key this node does not have makes it read the key again, at most this often. */
const UNKNOWN_KEY_RELOAD_MS = 1000;
/** The longest life of a user token (POST /v2/admin/tokens `ttl`): one year. */
export const USER_TOKEN_MAX_TTL_SECONDS = 31_536_000;
/**
 * How long a revocation is kept: past the end of any token it can name, whatever its `exp`, so revoking needs only
 * the `jti`. A day more than the longest life, for the clocks of the node that issued and the one that revokes.
 */
const REVOCATION_KEPT_MS = (USER_TOKEN_MAX_TTL_SECONDS + 86_400) * 1000;

/**
 * What a user token may do in the data-store API: `read` queries every device of its project; `write` also deletes
 * their history (POST /datapoints/delete, DELETE /metric/{deviceid}).
 */
export type UserTokenScope = 'read' | 'write';

/**
 * Everything a user token may do, each its own grant (issue 25): `read` (every token: query points), `write` (delete
 * history), `fleet` (POST /v2/shadows/query over its project) and `desired` (write a device's desired state). A grant
 * is only ever carried by tokens issued with it: tokens issued before `fleet` and `desired` existed have neither.
 */
export type UserTokenGrant = UserTokenScope | 'fleet' | 'desired';

/** Every grant, in the order replies list them. */
export const USER_TOKEN_GRANTS: readonly UserTokenGrant[] = ['read', 'write', 'fleet', 'desired'];

/** The JWT `scope` entry of each grant beside `project:<projectid>`; `read` has none, every token reads. */
const SCOPE_ENTRY: Readonly<Record<Exclude<UserTokenGrant, 'read'>, string>> = {
  write: 'feed:write',
  fleet: 'shadow:fleet',
  desired: 'shadow:desired',
};

export interface UserTokenClaims {
  projectid: string;
  expires: number;
  /** The data-store scope, as before grants: `write` when the token holds the `write` grant. */
  scope: UserTokenScope;
  /** The token's grants, `read` always among them, in the order of USER_TOKEN_GRANTS. */
  grants: readonly UserTokenGrant[];
}

/** True when the token was issued with `grant` (`read`: every token). */
export const hasGrant = (claims: Pick<UserTokenClaims, 'grants'>, grant: UserTokenGrant): boolean => claims.grants.includes(grant);

/** 403 TOKEN_GRANT_MISSING (naming the grant and how to get it) unless the token was issued with `grant`. */
export function requireGrant(claims: Pick<UserTokenClaims, 'grants'>, grant: UserTokenGrant): void {
  if (hasGrant(claims, grant)) return;
  throw new AppError('TOKEN_GRANT_MISSING',
    `this user token was issued without the grant "${grant}"; issue one with "grants": ["${grant}"] (POST /v2/admin/tokens)`, { grant });
}

/** The grants, `read` added, once each, in the order of USER_TOKEN_GRANTS. */
const normalGrants = (grants: Iterable<UserTokenGrant>): UserTokenGrant[] => {
  const given = new Set<UserTokenGrant>(grants);
  return USER_TOKEN_GRANTS.filter((grant) => grant === 'read' || given.has(grant));
};

/** The grants a JWT `scope` claim names; entries this service does not know are ignored. */
const grantsOfScope = (scope: unknown): UserTokenGrant[] => {
  const entries = Array.isArray(scope) ? scope : [];
  return normalGrants((Object.keys(SCOPE_ENTRY) as Exclude<UserTokenGrant, 'read'>[]).filter((grant) => entries.includes(SCOPE_ENTRY[grant])));
};

/** A new token and what an operator needs to know of it: `jti` names it to revoke it. */
export interface IssuedUserToken {
  token: string;
  jti: string;
  expires: number;
  scope: UserTokenScope;
  grants: readonly UserTokenGrant[];
}

export interface UserTokens {
  /** A token of `projectid` holding `grants` (`read` whether named or not). */
  issue(projectid: string, ttlSeconds: number, grants?: Iterable<UserTokenGrant>): Promise<IssuedUserToken>;
  /**
   * The token's project and scope, or undefined when the token is malformed, forged, expired or signed with a replaced
   * key; rejects with INVALID_CREDENTIALS when its `jti` is revoked (its signature is checked first, so a forged token
   * costs no read of the revocations).
   */
  verify(token: string): Promise<UserTokenClaims | undefined>;
  /** Replaces the signing key: tokens signed with the old one are refused from then on, on every node. */
  rotateKey(): Promise<{ kid: string }>;
  /** Refuses the token `jti` from now on, on every node (idempotent; an unknown `jti` is recorded all the same). */
  revoke(jti: string): Promise<void>;
}

export interface UserTokenDeps {
  keys: SigningKeyStore;
  /** Change notices: a rotation on another node makes this one read the key again. */
  changes?: ChangeFeed;
  now?: () => number;
  /** How long the key read is used before it is read again, in ms; unset: until this node rotates it. */
  maxAgeMs?: number;
  /** The revoked tokens, as this node reads them (cached-revoked-tokens.ts); unset: this process's memory. */
  revoked?: RevokedTokens;
}

interface LoadedKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
}

const freshKey = async (): Promise<JWK> => exportJWK((await generateKeyPair(ALG, { extractable: true })).privateKey);

async function importKey(jwk: JWK): Promise<LoadedKey> {
  const publicJwk = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
  return {
    // The RFC 7638 thumbprint of the public key: the same on every node, without storing an id beside the key.
    kid: await calculateJwkThumbprint(publicJwk),
    privateKey: (await importJWK(jwk, ALG)) as CryptoKey,
    publicKey: (await importJWK(publicJwk, ALG)) as CryptoKey,
  };
}

/**
 * Signed bearer tokens scoped to one project, for the data-store API. The ES256 key is made on first start and kept
 * in the store (`keys`: USER_TOKEN_KEY_FILE with STORE=sqlite, Cassandra with STORE=cassandra, where the first node
 * to start creates it for all), so tokens survive restarts and every node accepts every node's tokens. Tokens name
 * their key (`kid`); a rotation replaces the key everywhere: this node at once, the others on the change notice, on
 * the first token naming a key they do not have, or within `maxAgeMs`. A revoked token (by `jti`) is refused as
 * `revoked` answers: at once on the node that revoked it, on the others as their copy of the answer is dropped.
 */
export async function createUserTokens({
  keys,
  changes = silentChangeFeed(),
  now = Date.now,
  maxAgeMs = Infinity,
  revoked = revokedInMemory(now),
}: UserTokenDeps): Promise<UserTokens> {
  let current = await importKey((await keys.read()) ?? (await keys.create(await freshKey())));
  /** When the key was last read, or tried: a store that cannot answer leaves this node with the key it has. */
  let checkedAt = now();
  let reading: Promise<LoadedKey> | undefined;
  let stale = false;

  /** Reads the key again; concurrent callers share one read. */
  function reload(): Promise<LoadedKey> {
    reading ??= (async () => {
      checkedAt = now();
      stale = false;
      try {
        const jwk = await keys.read();
        if (jwk) current = await importKey(jwk);
      } catch {
        // Kept: tokens go on being checked with the key this node has until the store answers again.
      } finally {
        reading = undefined;
      }
      return current;
    })();
    return reading;
  }

  const keyNow = (): Promise<LoadedKey> => (stale || now() - checkedAt >= maxAgeMs ? reload() : Promise.resolve(current));

  changes.listen((notice) => {
    if (notice === 'all' || notice.kind === 'signing-key') stale = true;
  });

  /** The claims and `jti` of a token this service signed with the key it has, or undefined. */
  async function signedClaims(token: string): Promise<{ claims: UserTokenClaims; jti?: string } | undefined> {
    try {
      // The high-S twin of a valid signature verifies too; only the form this service signs is taken (low-s.ts).
      if (!hasLowS(token)) return undefined;
      let key = await keyNow();
      // Tokens issued before keys had ids carry none: they are checked against the key there is.
      const { kid } = decodeProtectedHeader(token);
      if (kid !== undefined && kid !== key.kid && now() - checkedAt >= UNKNOWN_KEY_RELOAD_MS) key = await reload();
      if (kid !== undefined && kid !== key.kid) return undefined;
      const { payload } = await jwtVerify(token, key.publicKey, { issuer: ISSUER, algorithms: [ALG] });
      const projectid = (payload.ctx as { projectid?: unknown } | undefined)?.projectid;
      if (typeof projectid !== 'string' || typeof payload.exp !== 'number') return undefined;
      const grants = grantsOfScope(payload.scope);
      return { claims: { projectid, expires: payload.exp * 1000, scope: scopeOf(grants), grants }, jti: payload.jti };
    } catch {
      return undefined;
    }
  }

  return {
    async issue(projectid, ttlSeconds, asked = ['read']) {
      const key = await keyNow();
      const at = Math.floor(now() / 1000);
      const grants = normalGrants(asked);
      const scopes = [`project:${projectid}`, ...grants.flatMap((grant) => (grant === 'read' ? [] : [SCOPE_ENTRY[grant]]))];
      const jti = randomUUID();
      const token = await new SignJWT({ ctx: { projectid }, scope: scopes })
        .setProtectedHeader({ alg: ALG, typ: 'JWT', kid: key.kid })
        .setIssuer(ISSUER)
        .setIssuedAt(at)
        .setNotBefore(at)
        .setExpirationTime(at + ttlSeconds)
        .setJti(jti)
        .sign(key.privateKey);
      return { token: withLowS(token), jti, expires: (at + ttlSeconds) * 1000, scope: scopeOf(grants), grants };
    },

    async verify(token) {
      const signed = await signedClaims(token);
      if (!signed) return undefined;
      // Tokens issued before they carried a `jti` cannot be revoked one by one: rotating the key ends them all.
      if (signed.jti !== undefined && (await revoked.isRevoked(signed.jti))) {
        throw new AppError('INVALID_CREDENTIALS', `user token ${signed.jti} was revoked`);
      }
      return signed.claims;
    },

    async rotateKey() {
      const jwk = await freshKey();
      await keys.replace(jwk);
      current = await importKey(jwk);
      checkedAt = now();
      changes.announce({ kind: 'signing-key', key: 'user-tokens' });
      return { kid: current.kid };
    },

    revoke: (jti) => revoked.revoke(jti, now() + REVOCATION_KEPT_MS),
  };
}

/** The data-store scope of a token's grants. */
const scopeOf = (grants: readonly UserTokenGrant[]): UserTokenScope => (grants.includes('write') ? 'write' : 'read');

/** Revocations kept by this process alone: for a UserTokens built without a store (unit tests). */
function revokedInMemory(now: () => number): RevokedTokens {
  const until = new Map<string, number>();
  return {
    async revoke(jti, expiresAt) {
      until.set(jti, expiresAt);
    },
    async isRevoked(jti) {
      return (until.get(jti) ?? 0) > now();
    },
  };
}

import * as t from 'io-ts';

/** Where MQTT sessions live (SESSION_STORE): SQLite in DATA_DIR, or Redis shared by every node of a cluster. */
export const SessionStoreKind = t.keyof({ sqlite: null, redis: null });

/** A redis:// or rediss:// URL, credentials and database number allowed (`redis://:password@host:6379/0`). */
export const RedisUrl = new t.Type<string, string, unknown>(
  'RedisUrl',
  (u): u is string => typeof u === 'string',
  (u, c) =>
    typeof u === 'string' && URL.canParse(u) && ['redis:', 'rediss:'].includes(new URL(u).protocol)
      ? t.success(u)
      : t.failure(u, c, 'must be a redis:// or rediss:// URL'),
  String,
);

/** SESSION_STORE and what it needs: Redis's URL, and the prefix of every key (several services may share one server). */
export type SessionStoreSettings = { readonly kind: 'sqlite' } | { readonly kind: 'redis'; readonly url: string; readonly keyPrefix: string };

/** A Redis key prefix: letters, digits and `:._-`, ending in `:` by convention but not by rule. */
export const KeyPrefix = new t.Type<string, string, unknown>(
  'KeyPrefix',
  (u): u is string => typeof u === 'string',
  (u, c) =>
    typeof u === 'string' && /^[A-Za-z0-9:._-]{1,64}$/.test(u) ? t.success(u) : t.failure(u, c, 'must be 1-64 letters, digits, ":", ".", "_" or "-"'),
  String,
);

/**
 * SESSION_STORE_URL is required with SESSION_STORE=redis, and unused otherwise (as KAIROSDB_URL is).
 * SESSION_STORE_PASSWORD (or its _FILE) goes into the URL, which must then have none: one of the two would be ignored.
 */
export function sessionStore({ kind, url, password, keyPrefix }: { kind: 'sqlite' | 'redis'; url?: string; password?: string; keyPrefix: string }): SessionStoreSettings | string {
  if (kind === 'sqlite') return { kind };
  if (url === undefined) return 'SESSION_STORE_URL: must be set when SESSION_STORE=redis';
  if (password === undefined) return { kind, url, keyPrefix };
  const parsed = new URL(url);
  if (parsed.password !== '') return 'SESSION_STORE_PASSWORD: SESSION_STORE_URL has a password already; set one or the other';
  parsed.password = encodeURIComponent(password);
  return { kind, url: parsed.toString(), keyPrefix };
}

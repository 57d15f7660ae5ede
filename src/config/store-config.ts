import * as t from 'io-ts';

/** Where devices, shadows and the point outbox live (STORE): SQLite in DATA_DIR, or Cassandra. */
export const StoreKind = t.keyof({ sqlite: null, cassandra: null });

/** CASSANDRA_* (docs/production.md "Production backends: Cassandra"). */
export interface CassandraSettings {
  /** `host:port` of the nodes the driver contacts first. */
  readonly contactPoints: readonly string[];
  readonly localDataCenter: string;
  readonly keyspace: string;
  /** Used only when the keyspace is created: a replication factor (SimpleStrategy), or replicas per data centre. */
  readonly replication: number | Readonly<Record<string, number>>;
  readonly credentials: { readonly username: string; readonly password: string } | undefined;
}

export type StoreSettings = { readonly kind: 'sqlite' } | ({ readonly kind: 'cassandra' } & CassandraSettings);

const HOST_PORT = /^[A-Za-z0-9._-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/** A comma-separated list of `host` or `host:port` (IPv6 in brackets), e.g. `10.0.0.1:9042,10.0.0.2:9042`. */
export const ContactPoints = new t.Type<string[], string, unknown>(
  'ContactPoints',
  (u): u is string[] => Array.isArray(u),
  (u, c) => {
    const points = typeof u === 'string' ? u.split(',').map((p) => p.trim()).filter((p) => p !== '') : [];
    return points.length > 0 && points.every((p) => HOST_PORT.test(p))
      ? t.success(points)
      : t.failure(u, c, 'must be a comma-separated list of host:port');
  },
  (points) => points.join(','),
);

/** An unquoted CQL name: it is written into statements as it is (CREATE KEYSPACE, qualified table names). */
export const CqlName = new t.Type<string, string, unknown>(
  'CqlName',
  (u): u is string => typeof u === 'string',
  (u, c) =>
    typeof u === 'string' && /^[A-Za-z][A-Za-z0-9_]{0,47}$/.test(u)
      ? t.success(u.toLowerCase())
      : t.failure(u, c, 'must be a letter then up to 47 letters, digits or "_"'),
  String,
);

/** `3` (SimpleStrategy, replication factor 3) or `dc1:3,dc2:2` (NetworkTopologyStrategy, replicas per data centre). */
export const Replication = new t.Type<number | Record<string, number>, string, unknown>(
  'Replication',
  (u): u is number | Record<string, number> => typeof u === 'number' || (typeof u === 'object' && u !== null),
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'must be a number or dc:n,dc:n');
    if (/^[1-9]\d?$/.test(u)) return t.success(Number(u));
    const pairs = u.split(',').map((p) => /^([A-Za-z0-9._-]+):([1-9]\d?)$/.exec(p.trim()));
    if (pairs.length === 0 || pairs.some((m) => m === null)) return t.failure(u, c, 'must be a number or dc:n,dc:n');
    return t.success(Object.fromEntries(pairs.map((m) => [m![1], Number(m![2])])));
  },
  (r) => (typeof r === 'number' ? String(r) : Object.entries(r).map(([dc, n]) => `${dc}:${n}`).join(',')),
);

/** CASSANDRA_USERNAME and CASSANDRA_PASSWORD go together; the error line names the one missing. */
export function cassandraCredentials(username: string | undefined, password: string | undefined): CassandraSettings['credentials'] | string {
  if (username === undefined && password === undefined) return undefined;
  if (username === undefined) return 'CASSANDRA_USERNAME: must be set when CASSANDRA_PASSWORD is';
  if (password === undefined) return 'CASSANDRA_PASSWORD: must be set when CASSANDRA_USERNAME is';
  return { username, password };
}

import { join } from 'node:path';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/Either';
import { BackboneSettings, backboneSettings, MqttUrl, NodeId, randomNodeId } from './backbone-config';
import { describeErrors } from '../core/decode-errors';
import { allowEntryProblem } from '../triggers/address-guard';
import { LIMITS_DEFAULTS, LIMITS_ENV, ServiceLimits, serviceLimits } from './limits-config';
import { cassandraCredentials, ContactPoints, CqlName, Replication, StoreKind, StoreSettings } from './store-config';
import { KeyPrefix, RedisUrl, sessionStore, SessionSettings, SessionStoreKind } from './session-config';
import { readTlsCredentials, TlsCredentials } from './tls-credentials';

const PortFromString = new t.Type<number, string, unknown>(
  'Port',
  (u): u is number => typeof u === 'number',
  (u, c) => {
    if (typeof u !== 'string' || !/^\d{1,5}$/.test(u)) return t.failure(u, c, 'must be a port number 0-65535');
    const n = Number(u);
    return n <= 65535 ? t.success(n) : t.failure(u, c, 'must be a port number 0-65535');
  },
  String,
);

const PositiveIntFromString = new t.Type<number, string, unknown>(
  'PositiveInt',
  (u): u is number => typeof u === 'number',
  (u, c) =>
    typeof u === 'string' && /^[1-9]\d{0,9}$/.test(u) ? t.success(Number(u)) : t.failure(u, c, 'must be a positive integer'),
  String,
);

/** A rate: a non-negative decimal such as `20` or `0.5`. */
const RateFromString = new t.Type<number, string, unknown>(
  'Rate',
  (u): u is number => typeof u === 'number',
  (u, c) =>
    typeof u === 'string' && /^\d{1,9}(\.\d{1,6})?$/.test(u) ? t.success(Number(u)) : t.failure(u, c, 'must be a number >= 0'),
  String,
);

const NonEmpty = new t.Type<string, string, unknown>(
  'NonEmptyString',
  (u): u is string => typeof u === 'string',
  (u, c) => (typeof u === 'string' && u.trim() !== '' ? t.success(u) : t.failure(u, c, 'must not be empty')),
  String,
);

const AdminTokenFromString = new t.Type<string, string, unknown>(
  'AdminToken',
  (u): u is string => typeof u === 'string',
  (u, c) =>
    typeof u === 'string' && u.length >= 16 ? t.success(u) : t.failure(u, c, 'must be at least 16 characters'),
  String,
);

/** `true` or `false`, nothing else: a typo such as `DEMO=ture` must not silently mean off. */
const BooleanFromString = new t.Type<boolean, string, unknown>(
  'Boolean',
  (u): u is boolean => typeof u === 'boolean',
  (u, c) => (u === 'true' || u === 'false' ? t.success(u === 'true') : t.failure(u, c, 'must be true or false')),
  String,
);

/** Unset, or set to a value of `codec`: a bad value gets the codec's one line, not a second "expected undefined". */
const optional = <A>(codec: t.Type<A, string, unknown>) =>
  new t.Type<A | undefined, string | undefined, unknown>(
    codec.name,
    (u): u is A | undefined => u === undefined || codec.is(u),
    (u, c) => (u === undefined ? t.success(undefined) : codec.validate(u, c)),
    (a) => (a === undefined ? undefined : codec.encode(a)),
  );

/** An absolute http(s) URL, e.g. `http://127.0.0.1:8080`. */
const HttpUrl = new t.Type<string, string, unknown>(
  'HttpUrl',
  (u): u is string => typeof u === 'string',
  (u, c) => {
    if (typeof u !== 'string' || !URL.canParse(u)) return t.failure(u, c, 'must be an http:// or https:// URL');
    return ['http:', 'https:'].includes(new URL(u).protocol) ? t.success(u) : t.failure(u, c, 'must be an http:// or https:// URL');
  },
  String,
);

/** Where points are kept and queries run: the embedded engine (SQLite in DATA_DIR) or a KairosDB server. */
const TimeSeriesKind = t.keyof({ embedded: null, kairosdb: null });

/** WEBHOOK_ALLOW_HOSTS: comma-separated host names, IP addresses and CIDR ranges; empty allows nothing extra. */
const AllowListFromString = new t.Type<readonly string[], string, unknown>(
  'AllowList',
  (u): u is readonly string[] => Array.isArray(u),
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'must be a list of host names, IP addresses or CIDR ranges');
    const entries = u.split(',').map((e) => e.trim()).filter((e) => e !== '');
    const problem = entries.map(allowEntryProblem).find((p) => p !== undefined);
    return problem ? t.failure(u, c, problem) : t.success(entries);
  },
  (a) => a.join(','),
);

/**
 * CORS_ORIGINS: comma-separated origins (`scheme://host[:port]`, as a browser sends them) whose pages may call the
 * HTTP API, or `*` for any; empty allows none.
 */
const OriginListFromString = new t.Type<readonly string[], string, unknown>(
  'OriginList',
  (u): u is readonly string[] => Array.isArray(u),
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'must be a comma-separated list of origins such as http://localhost:3000, or *');
    const entries = u.split(',').map((e) => e.trim()).filter((e) => e !== '');
    const bad = entries.find((e) => e !== '*' && !(URL.canParse(e) && new URL(e).origin === e));
    return bad === undefined
      ? t.success(entries)
      : t.failure(u, c, `"${bad}" is not an origin: expected scheme://host[:port] without a path or trailing slash, or *`);
  },
  (a) => a.join(','),
);

/** Webhook attempts per delivery: 1 (no retry) to 10. */
const AttemptsFromString = new t.Type<number, string, unknown>(
  'Attempts',
  (u): u is number => typeof u === 'number',
  (u, c) => (typeof u === 'string' && /^([1-9]|10)$/.test(u) ? t.success(Number(u)) : t.failure(u, c, 'must be a whole number from 1 to 10')),
  String,
);

const LogLevel = t.keyof({ fatal: null, error: null, warn: null, info: null, debug: null, trace: null, silent: null });

/** Every variable the service reads, with its default. Units are in the names' docs (docs/operations.md, "Configuration"). */
const Env = t.type({
  HOST: NonEmpty,
  PORT: PortFromString,
  MQTT_HOST: NonEmpty,
  MQTT_PORT: PortFromString,
  MQTT_WS_PORT: optional(PortFromString),
  TLS_CERT_FILE: optional(NonEmpty),
  TLS_KEY_FILE: optional(NonEmpty),
  MQTTS_PORT: PortFromString,
  HTTPS_PORT: PortFromString,
  COAP_HOST: NonEmpty,
  COAP_PORT: PortFromString,
  DATA_DIR: NonEmpty,
  USER_TOKEN_KEY_FILE: optional(NonEmpty),
  ADMIN_TOKEN: t.union([AdminTokenFromString, t.undefined]),
  LOG_LEVEL: LogLevel,
  SHUTDOWN_TIMEOUT_MS: PositiveIntFromString,
  RATE_LIMIT_RPS: RateFromString,
  RATE_LIMIT_BURST: PositiveIntFromString,
  METRICS_TOKEN: t.union([AdminTokenFromString, t.undefined]),
  CORS_ORIGINS: OriginListFromString,
  DEMO: BooleanFromString,
  WEBHOOK_ALLOW_HOSTS: AllowListFromString,
  WEBHOOK_TIMEOUT_MS: PositiveIntFromString,
  WEBHOOK_MAX_ATTEMPTS: AttemptsFromString,
  BACKBONE_URL: optional(MqttUrl),
  BACKBONE_USERNAME: optional(NonEmpty),
  BACKBONE_PASSWORD: optional(NonEmpty),
  NODE_ID: optional(NodeId),
  TIMESERIES: TimeSeriesKind,
  KAIROSDB_URL: optional(HttpUrl),
  KAIROSDB_TIMEOUT_MS: PositiveIntFromString,
  STORE: StoreKind,
  CASSANDRA_CONTACT_POINTS: ContactPoints,
  CASSANDRA_LOCAL_DATACENTER: NonEmpty,
  CASSANDRA_KEYSPACE: CqlName,
  CASSANDRA_USERNAME: optional(NonEmpty),
  CASSANDRA_PASSWORD: optional(NonEmpty),
  CASSANDRA_REPLICATION: Replication,
  ...LIMITS_ENV,
  SESSION_STORE: SessionStoreKind,
  SESSION_STORE_URL: optional(RedisUrl),
  SESSION_STORE_PREFIX: KeyPrefix,
  SESSION_EXPIRY_SECONDS: PositiveIntFromString,
  SESSION_QUEUE_LIMIT: PositiveIntFromString,
  RETAINED_PER_GROUP_LIMIT: PositiveIntFromString,
});

/** The name of every variable the service reads; test/integration/deploy checks docker-compose.yml against it. */
export const ENV_NAMES: readonly string[] = Object.keys(Env.props);

const DEFAULTS: Record<string, string> = {
  HOST: '0.0.0.0',
  PORT: '8080',
  MQTT_HOST: '0.0.0.0',
  MQTT_PORT: '1883',
  MQTTS_PORT: '8883',
  HTTPS_PORT: '8443',
  COAP_HOST: '0.0.0.0',
  COAP_PORT: '5683',
  DATA_DIR: './data',
  LOG_LEVEL: 'info',
  SHUTDOWN_TIMEOUT_MS: '10000',
  RATE_LIMIT_RPS: '20',
  RATE_LIMIT_BURST: '40',
  CORS_ORIGINS: '',
  DEMO: 'false',
  WEBHOOK_ALLOW_HOSTS: '',
  WEBHOOK_TIMEOUT_MS: '5000',
  WEBHOOK_MAX_ATTEMPTS: '3',
  TIMESERIES: 'embedded',
  KAIROSDB_TIMEOUT_MS: '10000',
  STORE: 'sqlite',
  CASSANDRA_CONTACT_POINTS: '127.0.0.1:9042',
  CASSANDRA_LOCAL_DATACENTER: 'datacenter1',
  CASSANDRA_KEYSPACE: 'openpie',
  CASSANDRA_REPLICATION: '1',
  ...LIMITS_DEFAULTS,
  SESSION_STORE: 'sqlite',
  SESSION_STORE_PREFIX: 'openpie:',
  // 7 days, a common broker default (AWS IoT keeps persistent sessions 1 hour to 7 days; EMQX's default is 2 hours).
  SESSION_EXPIRY_SECONDS: '604800',
  SESSION_QUEUE_LIMIT: '1000',
  RETAINED_PER_GROUP_LIMIT: '1000',
};

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly mqttHost: string;
  readonly mqttPort: number;
  /** MQTT over WebSocket on a port of its own (on MQTT_HOST); undefined: only on the HTTP server's /mqtt path. */
  readonly mqttWsPort: number | undefined;
  /** Undefined: no TLS listeners. Set: MQTT over TLS on `mqttsPort`, HTTPS (and WSS on /mqtt) on `httpsPort`. */
  readonly tls: TlsCredentials | undefined;
  readonly mqttsPort: number;
  readonly httpsPort: number;
  readonly coapHost: string;
  readonly coapPort: number;
  readonly dataDir: string;
  /**
   * STORE=sqlite: the ES256 key that signs user tokens (a JWK file, made there on first start). Default:
   * DATA_DIR/user-token-key.json. STORE=cassandra keeps the key in Cassandra for every node and ignores this.
   */
  readonly userTokenKeyFile: string;
  /** Undefined: the service makes one on first start and keeps it in DATA_DIR. */
  readonly adminToken: string | undefined;
  readonly logLevel: t.TypeOf<typeof LogLevel>;
  readonly shutdownTimeoutMs: number;
  /** Per-device requests (REST Device API) and PUBLISH packets (MQTT) per second; 0 = no limit. */
  readonly rateLimitRps: number;
  /** How many may arrive at once after a quiet spell (the token bucket's size). */
  readonly rateLimitBurst: number;
  /** Undefined: /metrics needs no credentials. */
  readonly metricsToken: string | undefined;
  /** Origins whose browser pages may call the HTTP API (Grafana in browser mode, dashboards); `*` = any; empty = none. */
  readonly corsOrigins: readonly string[];
  /** Demo project, devices and sample points on start (src/demo); `npm start -- --demo` sets it too. */
  readonly demo: boolean;
  /**
   * Webhooks of event hooks (docs/automation.md "Triggers and event hooks"): hosts, addresses and CIDR ranges they may reach
   * beside public addresses; the deadline of one attempt in ms; attempts per delivery (retries with backoff).
   */
  readonly webhooks: { readonly allowHosts: readonly string[]; readonly timeoutMs: number; readonly maxAttempts: number };
  /** BACKBONE_URL and its credentials: the MQTT backbone joining several nodes; undefined runs a single node. */
  readonly backbone: BackboneSettings | undefined;
  /** NODE_ID: this node's name on the backbone and in its logs; random when unset. */
  readonly nodeId: string;
  /** TIMESERIES: the embedded engine, or KairosDB at KAIROSDB_URL with a KAIROSDB_TIMEOUT_MS deadline per request. */
  readonly timeseries: { readonly kind: 'embedded' } | { readonly kind: 'kairosdb'; readonly url: string; readonly timeoutMs: number };
  /** STORE: devices, shadows and the point outbox in SQLite (DATA_DIR), or in Cassandra as CASSANDRA_* say. */
  readonly store: StoreSettings;
  /** Query budgets and slots, script sandbox threads, HTTP body and CoAP upload limits (QUERY_*, SANDBOX_*, ...). */
  readonly limits: ServiceLimits;
  /** SESSION_*: where MQTT sessions and retained messages live, and their bounds. */
  readonly sessions: SessionSettings;
}

export class ConfigError extends Error {}

/** Decodes the environment once; throws ConfigError with one readable line per bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(Env.props)) {
    const value = env[key];
    raw[key] = value === undefined || value === '' ? DEFAULTS[key] : value;
  }
  const decoded = Env.decode(raw);
  if (isLeft(decoded)) {
    throw new ConfigError(`invalid configuration:\n${describeErrors(decoded.left).map((l) => `  ${l}`).join('\n')}`);
  }
  const e = decoded.right;
  const { tls, problems } = readTlsCredentials(e.TLS_CERT_FILE, e.TLS_KEY_FILE);
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n${problems.map((l) => `  ${l}`).join('\n')}`);
  if (e.TIMESERIES === 'kairosdb' && e.KAIROSDB_URL === undefined) {
    throw new ConfigError('invalid configuration:\n  KAIROSDB_URL: must be set when TIMESERIES=kairosdb');
  }
  const credentials = cassandraCredentials(e.CASSANDRA_USERNAME, e.CASSANDRA_PASSWORD);
  if (typeof credentials === 'string') throw new ConfigError(`invalid configuration:\n  ${credentials}`);
  const sessions = sessionStore(e.SESSION_STORE, e.SESSION_STORE_URL, e.SESSION_STORE_PREFIX);
  if (typeof sessions === 'string') throw new ConfigError(`invalid configuration:\n  ${sessions}`);
  return Object.freeze({
    host: e.HOST,
    port: e.PORT,
    mqttHost: e.MQTT_HOST,
    mqttPort: e.MQTT_PORT,
    mqttWsPort: e.MQTT_WS_PORT,
    tls,
    mqttsPort: e.MQTTS_PORT,
    httpsPort: e.HTTPS_PORT,
    coapHost: e.COAP_HOST,
    coapPort: e.COAP_PORT,
    dataDir: e.DATA_DIR,
    userTokenKeyFile: e.USER_TOKEN_KEY_FILE ?? join(e.DATA_DIR, 'user-token-key.json'),
    adminToken: e.ADMIN_TOKEN,
    logLevel: e.LOG_LEVEL,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    rateLimitRps: e.RATE_LIMIT_RPS,
    rateLimitBurst: e.RATE_LIMIT_BURST,
    metricsToken: e.METRICS_TOKEN,
    corsOrigins: e.CORS_ORIGINS,
    demo: e.DEMO,
    webhooks: { allowHosts: e.WEBHOOK_ALLOW_HOSTS, timeoutMs: e.WEBHOOK_TIMEOUT_MS, maxAttempts: e.WEBHOOK_MAX_ATTEMPTS },
    backbone: e.BACKBONE_URL === undefined ? undefined : backboneSettings(e.BACKBONE_URL, e.BACKBONE_USERNAME, e.BACKBONE_PASSWORD),
    nodeId: e.NODE_ID ?? randomNodeId(),
    timeseries: e.TIMESERIES === 'kairosdb' && e.KAIROSDB_URL !== undefined
      ? { kind: 'kairosdb' as const, url: e.KAIROSDB_URL, timeoutMs: e.KAIROSDB_TIMEOUT_MS }
      : { kind: 'embedded' as const },
    store: e.STORE === 'cassandra'
      ? { kind: 'cassandra' as const, contactPoints: e.CASSANDRA_CONTACT_POINTS, localDataCenter: e.CASSANDRA_LOCAL_DATACENTER,
          keyspace: e.CASSANDRA_KEYSPACE, replication: e.CASSANDRA_REPLICATION, credentials }
      : { kind: 'sqlite' as const },
    limits: serviceLimits(e),
    sessions: {
      store: sessions,
      expirySeconds: e.SESSION_EXPIRY_SECONDS,
      queueLimit: e.SESSION_QUEUE_LIMIT,
      retainedPerGroupLimit: e.RETAINED_PER_GROUP_LIMIT,
    },
  });
}

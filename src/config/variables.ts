import { DEFAULT_WRITE_HOLD_MS } from '../adapters/kairosdb/kairosdb-write-hold';
import { CoapUploadLimits, DEFAULT_COAP_UPLOAD_LIMITS } from '../coap/unfinished-uploads';
import { DEFAULT_FLEET_LIMITS, FleetLimits } from '../fleet/limits';
import { DEFAULT_SESSION_LIMITS, SessionLimits } from '../sessions/settings';
import { DEFAULT_QUERY_LIMITS, QueryLimits } from '../timeseries/limits';
import { DEFAULT_RETENTION_SETTINGS, RetentionSettings, RetentionText } from '../timeseries/retention-settings';
import { DEFAULT_SANDBOX_POOL } from '../timeseries/sandbox/sandbox-pool';
import { DEFAULT_WEBHOOK_SETTINGS, WebhookSettings } from '../triggers/webhook';
import { MqttUrl, NodeId } from './backbone-config';
import {
  AddressList, AllowList, AtLeastOne, AtLeastZero, Attempts, Flag, HttpUrl, LogLevel, NonEmpty, optional, OptionalSecret, OriginList,
  Port, PositiveInt, Rate, TimeSeriesKind,
} from './env-codecs';
import { KeyPrefix, RedisUrl, SessionStoreKind } from './session-config';
import { ContactPoints, CqlName, Replication, StoreKind } from './store-config';
import { secret } from './secret-files';
import { Rows, variable as v } from './variable';

/**
 * Every variable the service reads, one row each: name, codec, default, one line of doc. A row's place in the tree is
 * where its value goes in the Config (config.ts settles the few that combine: TLS files, backends, credentials).
 * Groups marked `satisfies Rows<...>` fill a feature's own settings type, with the feature's defaults.
 * docs/operations.md "Configuration" documents each one once (test/unit/docs-configuration.test.ts).
 */

const webhooks = {
  allowHosts: v('WEBHOOK_ALLOW_HOSTS', AllowList, DEFAULT_WEBHOOK_SETTINGS.allowHosts.join(','), 'hosts, addresses and CIDR ranges webhooks may reach besides public addresses'),
  timeoutMs: v('WEBHOOK_TIMEOUT_MS', PositiveInt, DEFAULT_WEBHOOK_SETTINGS.timeoutMs, 'deadline of one webhook attempt, in ms'),
  maxAttempts: v('WEBHOOK_MAX_ATTEMPTS', Attempts, DEFAULT_WEBHOOK_SETTINGS.maxAttempts, 'attempts per webhook delivery, 1 to 10'),
} satisfies Rows<WebhookSettings>;

const Q = DEFAULT_QUERY_LIMITS;
const query = {
  budgets: {
    maxPointsScanned: v('QUERY_MAX_POINTS_SCANNED', AtLeastOne, Q.budgets.maxPointsScanned, 'points one data-store query may read'),
    maxPointsReturned: v('QUERY_MAX_POINTS_RETURNED', AtLeastOne, Q.budgets.maxPointsReturned, 'points one answer may hold'),
    maxResponseBytes: v('QUERY_MAX_RESPONSE_BYTES', AtLeastOne, Q.budgets.maxResponseBytes, "bytes of one answer's JSON"),
    maxGroups: v('QUERY_MAX_GROUPS', AtLeastOne, Q.budgets.maxGroups, 'result groups of one answer'),
    timeoutMs: v('QUERY_TIMEOUT_MS', AtLeastOne, Q.budgets.timeoutMs, 'wall-clock time of one query, in ms'),
  },
  concurrency: v('QUERY_CONCURRENCY', AtLeastOne, Q.concurrency, 'data-store queries running at once'),
  perCaller: v('QUERY_CONCURRENCY_PER_CALLER', AtLeastOne, Q.perCaller, 'queries one caller runs at once'),
  queuePerCaller: v('QUERY_QUEUE_PER_CALLER', AtLeastZero, Q.queuePerCaller, 'queries one caller may have waiting'),
  queueTimeoutMs: v('QUERY_QUEUE_TIMEOUT_MS', AtLeastOne, Q.queueTimeoutMs, 'longest wait for a query slot, in ms'),
} satisfies Rows<QueryLimits>;

const F = DEFAULT_FLEET_LIMITS;
const fleet = {
  maxScanned: v('FLEET_QUERY_MAX_DEVICES', AtLeastOne, F.maxScanned, 'devices one fleet query may scan (the project, or the group asked)'),
  timeoutMs: v('FLEET_QUERY_TIMEOUT_MS', AtLeastOne, F.timeoutMs, "wall-clock time of one fleet query's scan, in ms"),
  concurrency: v('FLEET_QUERY_CONCURRENCY', AtLeastOne, F.concurrency, 'fleet queries running at once'),
  perCaller: v('FLEET_QUERY_CONCURRENCY_PER_CALLER', AtLeastOne, F.perCaller, 'fleet queries one project runs at once'),
  queuePerCaller: v('FLEET_QUERY_QUEUE_PER_CALLER', AtLeastZero, F.queuePerCaller, 'fleet queries one project may have waiting'),
  queueTimeoutMs: v('FLEET_QUERY_QUEUE_TIMEOUT_MS', AtLeastOne, F.queueTimeoutMs, 'longest wait for a fleet query slot, in ms'),
  maxAgeMs: v('FLEET_INDEX_MAX_AGE_MS', AtLeastOne, F.maxAgeMs, "a project's fleet index older than this is read again from the store, in ms"),
  idleMs: v('FLEET_INDEX_IDLE_MS', AtLeastOne, F.idleMs, "a project's fleet index not queried for this long is dropped, in ms"),
} satisfies Rows<FleetLimits>;

const coapUploads = {
  perClient: v('COAP_UPLOADS_PER_CLIENT', AtLeastOne, DEFAULT_COAP_UPLOAD_LIMITS.perClient, 'unfinished CoAP block-wise uploads of one client address'),
  bytesPerClient: v('COAP_UPLOAD_BYTES_PER_CLIENT', AtLeastOne, DEFAULT_COAP_UPLOAD_LIMITS.bytesPerClient, 'bytes the unfinished uploads of one client address hold'),
  bytesTotal: v('COAP_UPLOAD_BYTES_TOTAL', AtLeastOne, DEFAULT_COAP_UPLOAD_LIMITS.bytesTotal, 'bytes all unfinished uploads hold'),
} satisfies Rows<CoapUploadLimits>;

const retention = {
  defaultMs: v('POINT_RETENTION', RetentionText, 'unlimited', "how long points are kept when neither their field nor their project says: unlimited, or a duration such as 30d (units ms s m h d y)"),
  cleanupEveryMs: v('POINT_CLEANUP_INTERVAL_MS', AtLeastOne, DEFAULT_RETENTION_SETTINGS.cleanupEveryMs, 'embedded engine: how often the blocks of expired points are dropped, in ms'),
} satisfies Rows<RetentionSettings>;

const sessionLimits = {
  expirySeconds: v('SESSION_EXPIRY_SECONDS', PositiveInt, DEFAULT_SESSION_LIMITS.expirySeconds, 'a persistent session not connected for this long is ended'),
  queueLimit: v('SESSION_QUEUE_LIMIT', PositiveInt, DEFAULT_SESSION_LIMITS.queueLimit, "messages one persistent session's queue holds"),
  retainedPerGroupLimit: v('RETAINED_PER_GROUP_LIMIT', PositiveInt, DEFAULT_SESSION_LIMITS.retainedPerGroupLimit, 'retained topics a group keeps'),
} satisfies Rows<SessionLimits>;

export const VARIABLES = {
  host: v('HOST', NonEmpty, '0.0.0.0', 'HTTP bind address'),
  port: v('PORT', Port, 8080, 'HTTP port (Device API and admin API)'),
  mqttHost: v('MQTT_HOST', NonEmpty, '0.0.0.0', 'MQTT bind address'),
  mqttPort: v('MQTT_PORT', Port, 1883, 'device-facing MQTT port'),
  mqttWsPort: v('MQTT_WS_PORT', optional(Port), undefined, "MQTT over WebSocket on a port of its own; unset: on the HTTP server's /mqtt only"),
  tls: {
    certFile: v('TLS_CERT_FILE', optional(NonEmpty), undefined, 'PEM certificate of the TLS listeners; set with TLS_KEY_FILE or not at all'),
    keyFile: v('TLS_KEY_FILE', optional(NonEmpty), undefined, "the certificate's private key"),
  },
  mqttsPort: v('MQTTS_PORT', Port, 8883, 'MQTT over TLS, with the TLS files only'),
  httpsPort: v('HTTPS_PORT', Port, 8443, 'HTTPS, with the TLS files only'),
  coapHost: v('COAP_HOST', NonEmpty, '0.0.0.0', 'CoAP bind address'),
  coapPort: v('COAP_PORT', Port, 5683, 'CoAP Device API UDP port'),
  dataDir: v('DATA_DIR', NonEmpty, './data', 'directory of the SQLite databases, the admin token and the user-token key'),
  userTokenKeyFile: v('USER_TOKEN_KEY_FILE', optional(NonEmpty), undefined, 'STORE=sqlite: the key that signs user tokens; unset: DATA_DIR/user-token-key.json'),
  credentialKeyFile: v('CREDENTIAL_KEY_FILE', optional(NonEmpty), undefined, 'the key device credentials are digested with; unset: DATA_DIR/credential-key'),
  adminToken: secret(v('ADMIN_TOKEN', OptionalSecret, undefined, 'bearer token of the admin API; unset: made on first start and kept in DATA_DIR')),
  logLevel: v('LOG_LEVEL', LogLevel, 'info', 'pino log level'),
  shutdownTimeoutMs: v('SHUTDOWN_TIMEOUT_MS', PositiveInt, 10000, 'how long in-flight work may take on SIGTERM/SIGINT, in ms'),
  rateLimitRps: v('RATE_LIMIT_RPS', Rate, 20, 'Device API calls (REST, CoAP) and MQTT PUBLISH packets per second per device; 0 = no limit'),
  rateLimitBurst: v('RATE_LIMIT_BURST', PositiveInt, 40, 'how many a device may send at once after a quiet spell'),
  metricsToken: secret(v('METRICS_TOKEN', OptionalSecret, undefined, 'bearer token /metrics wants; unset: none')),
  auditRetentionDays: v('AUDIT_RETENTION_DAYS', AtLeastOne, 90, 'days the audit log keeps each admin change'),
  corsOrigins: v('CORS_ORIGINS', OriginList, '', 'origins whose browser pages may call the HTTP API, or *'),
  demo: v('DEMO', Flag, 'false', 'start with the demo project and sample points'),
  proxyProtocol: {
    enabled: v('PROXY_PROTOCOL', Flag, 'false', 'the TCP listeners (HTTP, HTTPS, MQTT, MQTTS) want a PROXY protocol v1 or v2 header first'),
    trusted: v('PROXY_PROTOCOL_TRUSTED', AddressList, '', 'addresses and CIDR ranges allowed to send it; empty: any'),
  },
  webhooks,
  backbone: {
    url: v('BACKBONE_URL', optional(MqttUrl), undefined, 'the MQTT broker that joins several nodes; unset: a single node'),
    username: v('BACKBONE_USERNAME', optional(NonEmpty), undefined, "the node's login on the backbone; wins over the URL's"),
    password: secret(v('BACKBONE_PASSWORD', optional(NonEmpty), undefined, "its password; wins over the URL's")),
  },
  nodeId: v('NODE_ID', optional(NodeId), undefined, "this node's name on the backbone and in its logs; unset: random"),
  timeseries: {
    kind: v('TIMESERIES', TimeSeriesKind, 'embedded', 'where points are kept and queries run: embedded or kairosdb'),
    url: v('KAIROSDB_URL', optional(HttpUrl), undefined, "KairosDB's base URL; required with TIMESERIES=kairosdb"),
    timeoutMs: v('KAIROSDB_TIMEOUT_MS', PositiveInt, 10000, 'deadline of each request to KairosDB, in ms'),
    writeHoldMs: v('KAIROSDB_WRITE_HOLD_MS', AtLeastZero, DEFAULT_WRITE_HOLD_MS, 'how long points KairosDB acknowledged are kept to be written again if it restarts, in ms'),
  },
  retention,
  store: {
    kind: v('STORE', StoreKind, 'sqlite', 'where the registry, shadows and point outbox live: sqlite or cassandra'),
    contactPoints: v('CASSANDRA_CONTACT_POINTS', ContactPoints, '127.0.0.1:9042', 'the Cassandra nodes the driver contacts first'),
    localDataCenter: v('CASSANDRA_LOCAL_DATACENTER', NonEmpty, 'datacenter1', "the data centre that serves this node's requests"),
    keyspace: v('CASSANDRA_KEYSPACE', CqlName, 'openpie', "the keyspace of the service's tables"),
    username: v('CASSANDRA_USERNAME', optional(NonEmpty), undefined, "Cassandra login, with CASSANDRA_PASSWORD"),
    password: secret(v('CASSANDRA_PASSWORD', optional(NonEmpty), undefined, 'its password, with CASSANDRA_USERNAME')),
    replication: v('CASSANDRA_REPLICATION', Replication, '1', 'replication of a keyspace the service creates'),
  },
  limits: {
    query,
    fleet,
    sandbox: {
      workers: v('SANDBOX_WORKERS', AtLeastOne, DEFAULT_SANDBOX_POOL.workers, 'threads running js_* scripts'),
      perCaller: v('SANDBOX_CONCURRENCY_PER_CALLER', AtLeastOne, DEFAULT_SANDBOX_POOL.perTenant, 'script threads one caller uses at once'),
    },
    httpBodyTimeoutMs: v('HTTP_BODY_TIMEOUT_MS', AtLeastOne, 30000, 'how long a request body may take once the headers are in, in ms'),
    coapUploads,
  },
  sessions: {
    store: {
      kind: v('SESSION_STORE', SessionStoreKind, 'sqlite', 'where MQTT sessions and retained messages live: sqlite or redis'),
      url: v('SESSION_STORE_URL', optional(RedisUrl), undefined, 'the Redis server; required with SESSION_STORE=redis'),
      password: secret(v('SESSION_STORE_PASSWORD', optional(NonEmpty), undefined, "Redis's password, put into SESSION_STORE_URL when it has none")),
      keyPrefix: v('SESSION_STORE_PREFIX', KeyPrefix, 'openpie:', 'put before every Redis key of the session store'),
    },
    ...sessionLimits,
  },
};

import * as t from 'io-ts';
import { isLeft } from 'fp-ts/Either';
import { describeErrors } from './decode-errors';

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

const LogLevel = t.keyof({ fatal: null, error: null, warn: null, info: null, debug: null, trace: null, silent: null });

/** Every variable the service reads, with its default. Units are in the names' docs (README, "Configuration"). */
const Env = t.type({
  HOST: NonEmpty,
  PORT: PortFromString,
  MQTT_HOST: NonEmpty,
  MQTT_PORT: PortFromString,
  COAP_HOST: NonEmpty,
  COAP_PORT: PortFromString,
  DATA_DIR: NonEmpty,
  ADMIN_TOKEN: t.union([AdminTokenFromString, t.undefined]),
  LOG_LEVEL: LogLevel,
  SHUTDOWN_TIMEOUT_MS: PositiveIntFromString,
  RATE_LIMIT_RPS: RateFromString,
  RATE_LIMIT_BURST: PositiveIntFromString,
  METRICS_TOKEN: t.union([AdminTokenFromString, t.undefined]),
  DEMO: BooleanFromString,
});

const DEFAULTS: Record<string, string> = {
  HOST: '0.0.0.0',
  PORT: '8080',
  MQTT_HOST: '0.0.0.0',
  MQTT_PORT: '1883',
  COAP_HOST: '0.0.0.0',
  COAP_PORT: '5683',
  DATA_DIR: './data',
  LOG_LEVEL: 'info',
  SHUTDOWN_TIMEOUT_MS: '10000',
  RATE_LIMIT_RPS: '20',
  RATE_LIMIT_BURST: '40',
  DEMO: 'false',
};

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly mqttHost: string;
  readonly mqttPort: number;
  readonly coapHost: string;
  readonly coapPort: number;
  readonly dataDir: string;
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
  /** Demo project, devices and sample points on start (src/demo); `npm start -- --demo` sets it too. */
  readonly demo: boolean;
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
  return Object.freeze({
    host: e.HOST,
    port: e.PORT,
    mqttHost: e.MQTT_HOST,
    mqttPort: e.MQTT_PORT,
    coapHost: e.COAP_HOST,
    coapPort: e.COAP_PORT,
    dataDir: e.DATA_DIR,
    adminToken: e.ADMIN_TOKEN,
    logLevel: e.LOG_LEVEL,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    rateLimitRps: e.RATE_LIMIT_RPS,
    rateLimitBurst: e.RATE_LIMIT_BURST,
    metricsToken: e.METRICS_TOKEN,
    demo: e.DEMO,
  });
}

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

const LogLevel = t.keyof({ fatal: null, error: null, warn: null, info: null, debug: null, trace: null, silent: null });

/** Every variable the service reads, with its default. Units are in the names' docs (README, "Configuration"). */
const Env = t.type({
  HOST: NonEmpty,
  PORT: PortFromString,
  MQTT_HOST: NonEmpty,
  MQTT_PORT: PortFromString,
  DATA_DIR: NonEmpty,
  ADMIN_TOKEN: t.union([AdminTokenFromString, t.undefined]),
  LOG_LEVEL: LogLevel,
  SHUTDOWN_TIMEOUT_MS: PositiveIntFromString,
});

const DEFAULTS: Record<string, string> = {
  HOST: '0.0.0.0',
  PORT: '8080',
  MQTT_HOST: '0.0.0.0',
  MQTT_PORT: '1883',
  DATA_DIR: './data',
  LOG_LEVEL: 'info',
  SHUTDOWN_TIMEOUT_MS: '10000',
};

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly mqttHost: string;
  readonly mqttPort: number;
  readonly dataDir: string;
  /** Undefined: the service makes one on first start and keeps it in DATA_DIR. */
  readonly adminToken: string | undefined;
  readonly logLevel: t.TypeOf<typeof LogLevel>;
  readonly shutdownTimeoutMs: number;
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
    dataDir: e.DATA_DIR,
    adminToken: e.ADMIN_TOKEN,
    logLevel: e.LOG_LEVEL,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
  });
}

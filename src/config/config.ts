import { join } from 'node:path';
import { backboneSettings, randomNodeId } from './backbone-config';
import { NonEmpty, optional } from './env-codecs';
import { fileVariableOf, hideSecretValues, placeholderSecrets, readSecretFiles } from './secret-files';
import { sessionStore } from './session-config';
import { cassandraCredentials, StoreSettings } from './store-config';
import { readTlsCredentials } from './tls-credentials';
import { Decoded, decodeVariables, variable, Variable, variablesOf } from './variable';
import { VARIABLES } from './variables';

/** The rows of the table, in its order. */
const TABLE: readonly Variable<unknown>[] = variablesOf(VARIABLES).map(({ variable: v }) => v);

/** A secret's `NAME_FILE` (secret-files.ts), read before the table is decoded. */
const fileVariant = (secret: Variable<unknown>) =>
  variable(fileVariableOf(secret.name), optional(NonEmpty), undefined, `a file holding ${secret.name}, instead of it`);

/** Every variable the service reads, in the table's order, each secret followed by its `_FILE` variant; docs/operations.md documents each once. */
export const CONFIG_VARIABLES: readonly Variable<unknown>[] = TABLE.flatMap((v) => (v.secret ? [v, fileVariant(v)] : [v]));

/** The name of every variable the service reads; test/integration/deploy checks docker-compose.yml against it. */
export const ENV_NAMES: readonly string[] = CONFIG_VARIABLES.map((v) => v.name);

/** What the service runs with: the table of variables.ts, decoded, with the variables that combine settled. */
export type Config = Readonly<ReturnType<typeof settle>>;

export class ConfigError extends Error {}

/** Decodes the environment once; throws ConfigError with one readable line per bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  const secrets = readSecretFiles(TABLE, env);
  const placeholders = placeholderSecrets(TABLE, secrets.env);
  const decoded = decodeVariables(VARIABLES, secrets.env);
  const decodeProblems = 'problems' in decoded ? hideSecretValues(TABLE, decoded.problems) : [];
  if (secrets.problems.length + placeholders.length + decodeProblems.length > 0 || 'problems' in decoded) {
    throw configError([...secrets.problems, ...placeholders, ...decodeProblems]);
  }
  const problems: string[] = [];
  const config = settle(decoded.value, problems);
  if (problems.length > 0) throw configError(problems);
  return Object.freeze(config);
}

const configError = (lines: readonly string[]) => new ConfigError(`invalid configuration:\n${lines.map((l) => `  ${l}`).join('\n')}`);

/**
 * The rules between variables: the TLS files go together and must be readable, a backend's URL is required when it
 * is chosen, Cassandra's credentials go in pairs; some defaults follow from other variables. Each fault is one line
 * added to `problems`.
 */
function settle(e: Decoded<typeof VARIABLES>, problems: string[]) {
  const { tls, problems: tlsProblems } = readTlsCredentials(e.tls.certFile, e.tls.keyFile);
  problems.push(...tlsProblems);
  return {
    ...e,
    tls,
    userTokenKeyFile: e.userTokenKeyFile ?? join(e.dataDir, 'user-token-key.json'),
    credentialKeyFile: e.credentialKeyFile ?? join(e.dataDir, 'credential-key'),
    backbone: e.backbone.url === undefined ? undefined : backboneSettings(e.backbone.url, e.backbone.username, e.backbone.password),
    nodeId: e.nodeId ?? randomNodeId(),
    timeseries: timeSeriesSettings(e.timeseries, problems),
    store: storeSettings(e.store, problems),
    sessions: { ...e.sessions, store: reported(sessionStore(e.sessions.store), problems) },
    proxyProtocol: e.proxyProtocol.enabled ? { trusted: e.proxyProtocol.trusted } : undefined,
  };
}

/**
 * TIMESERIES: the embedded engine, or KairosDB at KAIROSDB_URL with a KAIROSDB_TIMEOUT_MS deadline per request and
 * acknowledged points held KAIROSDB_WRITE_HOLD_MS for a replay after a crash (adapters/kairosdb/kairosdb-write-hold.ts).
 */
function timeSeriesSettings(e: Decoded<typeof VARIABLES.timeseries>, problems: string[]) {
  if (e.kind === 'embedded') return { kind: 'embedded' as const };
  if (e.url === undefined) problems.push('KAIROSDB_URL: must be set when TIMESERIES=kairosdb');
  return { kind: 'kairosdb' as const, url: e.url ?? '', timeoutMs: e.timeoutMs, writeHoldMs: e.writeHoldMs };
}

/** STORE: devices, shadows and the point outbox in SQLite (DATA_DIR), or in Cassandra as CASSANDRA_* say. */
function storeSettings(e: Decoded<typeof VARIABLES.store>, problems: string[]): StoreSettings {
  const credentials = reported(cassandraCredentials(e.username, e.password), problems);
  if (e.kind === 'sqlite') return { kind: 'sqlite' };
  const { contactPoints, localDataCenter, keyspace, replication } = e;
  return { kind: 'cassandra', contactPoints, localDataCenter, keyspace, replication, credentials };
}

/** A setting, or the line saying why there is none (added to `problems`; the value is then never used). */
function reported<A>(result: A | string, problems: string[]): A {
  if (typeof result === 'string') problems.push(result);
  return result as A;
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DestinationStream } from 'pino';
import { loadConfig } from '../../src/config/config';
import { createLogger } from '../../src/core/logger';
import { ServiceOptions } from '../../src/compose/service';
import { RunningServer, startServer } from '../../src/server';
import { testStoreFor } from './cassandra';
import { HttpClient, httpClient } from './http';
import { dropRedisKeys, testSessionStoreEnv } from './redis';

export interface Stack {
  server: RunningServer;
  dataDir: string;
  baseUrl: string;
  mqttUrl: string;
  /** `ws://127.0.0.1:<HTTP port>/mqtt`: MQTT over WebSocket on the HTTP server (test/integration/transports). */
  mqttWsUrl: string;
  /** `coap://127.0.0.1:<port>`, UDP. */
  coapUrl: string;
  http: HttpClient;
  /** Admin calls, already authorised. */
  admin: HttpClient;
  /** Closes the server; with `keepData` the data dir stays for a restart. */
  stop(opts?: { keepData?: boolean }): Promise<void>;
}

/** A whole service on free ports with its own data dir: real HTTP, real MQTT, real CoAP, real SQLite. */
export async function startStack(
  opts: {
    dataDir?: string;
    env?: Record<string, string>;
    /** Where log lines go instead of stdout (set LOG_LEVEL in `env` too: tests log nothing by default). */
    logStream?: DestinationStream;
  } & ServiceOptions = {},
): Promise<Stack> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'openpie-test-'));
  // TEST_STORE=cassandra: the registry and shadows in Cassandra (test/helpers/cassandra.ts).
  const store = testStoreFor(dataDir, opts);
  // A session store of the stack's own (TEST_SESSION_STORE=redis), unless the suite names one (a cluster shares one).
  const sessions = opts.env?.SESSION_STORE === undefined ? testSessionStoreEnv(dataDir) : {};
  const config = loadConfig({
    PORT: '0',
    MQTT_PORT: '0',
    COAP_PORT: '0',
    // Used only when a suite sets TLS_CERT_FILE and TLS_KEY_FILE (test/integration/transports).
    MQTTS_PORT: '0',
    HTTPS_PORT: '0',
    HOST: '127.0.0.1',
    MQTT_HOST: '127.0.0.1',
    COAP_HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ADMIN_TOKEN: 'test-admin-token-0123456789',
    // Suites drive one device hard; the per-device limit is off unless a suite sets it (test/integration/ops).
    RATE_LIMIT_RPS: '0',
    ...sessions,
    ...store.env,
    ...opts.env,
  });
  const server = await startServer(config, createLogger(config.logLevel, opts.logStream), {
    readinessChecks: opts.readinessChecks,
    sharedDatabase: opts.sharedDatabase,
    sharedStateMaxAgeMs: opts.sharedStateMaxAgeMs,
    credentialKeyFile: opts.credentialKeyFile,
  });
  const baseUrl = `http://127.0.0.1:${server.httpPort}`;
  return {
    server,
    dataDir,
    baseUrl,
    mqttUrl: `mqtt://127.0.0.1:${server.mqttPort}`,
    mqttWsUrl: `ws://127.0.0.1:${server.httpPort}/mqtt`,
    coapUrl: `coap://127.0.0.1:${server.coapPort}`,
    http: httpClient(baseUrl),
    admin: httpClient(baseUrl, { authorization: `Bearer ${server.adminToken}` }),
    async stop({ keepData = false } = {}) {
      await server.close();
      await store.release(keepData);
      if (!keepData && sessions.SESSION_STORE_PREFIX && sessions.SESSION_STORE_URL) await dropRedisKeys(sessions.SESSION_STORE_URL, sessions.SESSION_STORE_PREFIX);
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { RunningServer, startServer } from '../../src/server';
import { HttpClient, httpClient } from './http';

export interface Stack {
  server: RunningServer;
  dataDir: string;
  baseUrl: string;
  mqttUrl: string;
  http: HttpClient;
  /** Admin calls, already authorised. */
  admin: HttpClient;
  /** Closes the server; with `keepData` the data dir stays for a restart. */
  stop(opts?: { keepData?: boolean }): Promise<void>;
}

/** A whole service on free ports with its own data dir: real HTTP, real MQTT, real SQLite. */
export async function startStack(opts: { dataDir?: string; env?: Record<string, string> } = {}): Promise<Stack> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'openpie-test-'));
  const config = loadConfig({
    PORT: '0',
    MQTT_PORT: '0',
    HOST: '127.0.0.1',
    MQTT_HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ADMIN_TOKEN: 'test-admin-token-0123456789',
    ...opts.env,
  });
  const server = await startServer(config, createLogger(config.logLevel));
  const baseUrl = `http://127.0.0.1:${server.httpPort}`;
  return {
    server,
    dataDir,
    baseUrl,
    mqttUrl: `mqtt://127.0.0.1:${server.mqttPort}`,
    http: httpClient(baseUrl),
    admin: httpClient(baseUrl, { authorization: `Bearer ${server.adminToken}` }),
    async stop({ keepData = false } = {}) {
      await server.close();
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

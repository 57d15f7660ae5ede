import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../src/core/logger';
import { startServer } from '../src/server';
import { benchConfig } from './service-in-dir';

export interface BenchDevice {
  deviceid: string;
  token: string;
  secret: string;
  /** `Device <ClientID>:<token>` */
  auth: string;
}

export interface BenchService {
  baseUrl: string;
  mqttUrl: string;
  /** Creates `count` devices in one fresh project and group, through the admin API. */
  provisionGroup(count: number): Promise<BenchDevice[]>;
  /** Stops the service and deletes its data dir. */
  close(): Promise<void>;
}

/** The whole service as `main` runs it (real HTTP, aedes, SQLite on disk), on free loopback ports, logging nothing. */
export async function startBenchService(): Promise<BenchService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'openpie-bench-'));
  const removeDataDir = () => rmSync(dataDir, { recursive: true, force: true });
  const config = benchConfig(dataDir, `bench-admin-${randomBytes(12).toString('hex')}`);
  let server;
  try {
    server = await startServer(config, createLogger(config.logLevel));
  } catch (err) {
    removeDataDir();
    throw err;
  }
  const running = server;
  const baseUrl = `http://127.0.0.1:${running.httpPort}`;

  async function createDevice(projectid: string, groupid: string, alias: string): Promise<BenchDevice> {
    const res = await fetch(`${baseUrl}/v2/admin/devices`, {
      method: 'POST',
      headers: { authorization: `Bearer ${running.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ projectid, groupid, alias }),
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`device ${alias} not created: ${res.status} ${text}`);
    const { deviceid, token, secret } = JSON.parse(text) as { deviceid: string; token: string; secret: string };
    return { deviceid, token, secret, auth: `Device ${deviceid}:${token}` };
  }

  let groups = 0;
  return {
    baseUrl,
    mqttUrl: `mqtt://127.0.0.1:${running.mqttPort}`,
    async provisionGroup(count) {
      const suffix = `${++groups}-${randomBytes(4).toString('hex')}`;
      const devices: BenchDevice[] = [];
      for (let i = 0; i < count; i++) devices.push(await createDevice(`bench-p${suffix}`, `bench-g${suffix}`, `dev-${i}`));
      return devices;
    },
    async close() {
      try {
        await running.close();
      } finally {
        removeDataDir();
      }
    },
  };
}

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'cassandra-driver';
import { createLogger } from '../src/core/logger';
import { RunningServer, startServer } from '../src/server';
import { HttpLoadRun, measureHttp } from './http-load';
import { benchConfig } from './service-in-dir';

export interface CassandraShadowBench {
  connections: number;
  warmupSeconds: number;
  seconds: number;
  print?: (line: string) => void;
}

interface Service {
  baseUrl: string;
  /** `Device <id>:<token>` of `count` fresh devices in one group. */
  provision(count: number): Promise<string[]>;
  close(): Promise<void>;
}

/** The whole service (real HTTP, aedes, embedded time series) on free loopback ports, with `store` as STORE. */
async function startService(store: Record<string, string>): Promise<Service> {
  const dataDir = mkdtempSync(join(tmpdir(), 'openpie-bench-store-'));
  const adminToken = `bench-admin-${randomBytes(12).toString('hex')}`;
  const config = benchConfig(dataDir, adminToken, store);
  let server: RunningServer;
  try {
    server = await startServer(config, createLogger(config.logLevel));
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const baseUrl = `http://127.0.0.1:${server.httpPort}`;
  const group = randomBytes(4).toString('hex');
  return {
    baseUrl,
    async provision(count) {
      const auths: string[] = [];
      for (let i = 0; i < count; i++) {
        const res = await fetch(`${baseUrl}/v2/admin/devices`, {
          method: 'POST',
          headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ projectid: `bench-p${group}`, groupid: `bench-g${group}`, alias: `dev-${i}` }),
        });
        const text = await res.text();
        if (res.status !== 201) throw new Error(`device not created: ${res.status} ${text}`);
        const { deviceid, token } = JSON.parse(text) as { deviceid: string; token: string };
        auths.push(`Device ${deviceid}:${token}`);
      }
      return auths;
    },
    async close() {
      try {
        await server.close();
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}

const shadowBody = (i: number) => JSON.stringify({ data: { temp: 20 + i / 2, humid: 50 + i } });

const row = (label: string, run: HttpLoadRun, yardstick?: HttpLoadRun) =>
  [
    label.padEnd(34),
    `${Math.round(run.requestsPerSecond).toString().padStart(7)} req/s`,
    yardstick ? `${(run.requestsPerSecond / yardstick.requestsPerSecond).toFixed(2).padStart(6)}x sqlite` : ''.padStart(13),
    `p50 ${run.p50Ms.toFixed(2).padStart(6)} ms`,
    `p99 ${run.p99Ms.toFixed(2).padStart(6)} ms`,
  ].join('   ');

/**
 * Shadow writes (PUT /v2/device/shadow/data, merge, two numeric fields, so each write also queues two points)
 * through the whole service with STORE=sqlite and with STORE=cassandra, in the same run: one device per connection,
 * then every connection on one device (compare-and-set retries). Cassandra is CASSANDRA_CONTACT_POINTS's, in a
 * keyspace of its own, dropped after. Returns the report's rows; without CASSANDRA_CONTACT_POINTS, one row saying so.
 */
export async function benchCassandraShadowWrites(spec: CassandraShadowBench): Promise<string[]> {
  const print = spec.print ?? (() => undefined);
  const contactPoints = process.env.CASSANDRA_CONTACT_POINTS;
  if (!contactPoints) return ['shadow writes on cassandra: skipped, CASSANDRA_CONTACT_POINTS is not set (eval "$(infra/env.sh)")'];
  const localDataCenter = process.env.CASSANDRA_LOCAL_DATACENTER || 'datacenter1';
  const keyspace = `openpie_bench_${randomBytes(6).toString('hex')}`;
  const stores = {
    sqlite: { STORE: 'sqlite' },
    cassandra: { STORE: 'cassandra', CASSANDRA_CONTACT_POINTS: contactPoints, CASSANDRA_LOCAL_DATACENTER: localDataCenter, CASSANDRA_KEYSPACE: keyspace },
  };
  const rows: string[] = [];
  try {
    const results: Partial<Record<keyof typeof stores, { spread: HttpLoadRun; oneDevice?: HttpLoadRun; oneDeviceError?: string }>> = {};
    for (const name of ['sqlite', 'cassandra'] as const) {
      const service = await startService(stores[name]);
      try {
        const devices = await service.provision(spec.connections);
        const load = (auths: string[]) => ({
          connections: spec.connections,
          warmupSeconds: spec.warmupSeconds,
          seconds: spec.seconds,
          url: `${service.baseUrl}/v2/device/shadow/data`,
          method: 'PUT' as const,
          perConnection: auths.map((auth, i) => ({ headers: { authorization: auth, 'content-type': 'application/json' }, body: shadowBody(i) })),
        });
        print(`measuring shadow writes with STORE=${name}, one device per connection ...`);
        const spread = await measureHttp(`shadow writes ${name}`, load(devices));
        print(`measuring shadow writes with STORE=${name}, all connections on one device ...`);
        try {
          results[name] = { spread, oneDevice: await measureHttp(`shadow writes ${name}, one device`, load(devices.map(() => devices[0]))) };
        } catch (err) {
          results[name] = { spread, oneDeviceError: err instanceof Error ? err.message : String(err) };
        }
      } finally {
        await service.close();
      }
    }
    const { sqlite, cassandra } = results;
    if (sqlite && cassandra) {
      rows.push(
        row(`shadow write sqlite    ${spec.connections} devices`, sqlite.spread),
        row(`shadow write cassandra ${spec.connections} devices`, cassandra.spread, sqlite.spread),
      );
      for (const [name, r, yardstick] of [['sqlite   ', sqlite, undefined], ['cassandra', cassandra, sqlite.oneDevice]] as const) {
        rows.push(r.oneDevice ? row(`shadow write ${name} 1 device`, r.oneDevice, yardstick) : `shadow write ${name} 1 device: failed: ${r.oneDeviceError}`);
      }
    }
  } finally {
    const client = new Client({ contactPoints: contactPoints.split(','), localDataCenter });
    await client.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`).finally(() => client.shutdown());
  }
  return rows;
}

/** `node dist/bench/cassandra-shadow.js` (after `npm run build`) runs this section alone. */
if (require.main === module) {
  benchCassandraShadowWrites({ connections: 10, warmupSeconds: 2, seconds: 8, print: (line) => process.stdout.write(`${line}\n`) })
    .then((rows) => rows.forEach((r) => process.stdout.write(`${r}\n`)))
    .catch((err: unknown) => {
      process.stderr.write(`benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    });
}

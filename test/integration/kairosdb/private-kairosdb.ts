import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'cassandra-driver';

const run = promisify(execFile);
const SCRIPT = resolve(__dirname, '../../../infra/kairosdb.sh');

/**
 * A KairosDB of one suite's own, that the suite may kill: the shared one of infra/ (KAIROSDB_URL) must never be
 * stopped by a test. Started by infra/kairosdb.sh itself (so CI installs and runs it as it does the shared one), in a
 * folder of its own (OPENPIE_INFRA_DIR: its pid file, config, log and write queue), on two free ports, over the
 * shared Cassandra (CASSANDRA_CONTACT_POINTS) in a keyspace of its own, dropped by `dispose`.
 */
export interface PrivateKairosDb {
  readonly url: string;
  /** `infra/kairosdb.sh start` then `wait`: as there, each start begins with an empty write queue. */
  start(): Promise<void>;
  /** SIGKILL, as a crash: KairosDB writes nothing more. Resolves once the process is gone. */
  kill(): Promise<void>;
  /** Stops it, drops its keyspace and removes its folder. */
  dispose(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  await new Promise<void>((done) => server.close(() => done()));
  if (typeof address !== 'object' || address === null) throw new Error('no free port');
  return address.port;
}

/** Whether `pid` still runs (a zombie, killed but not yet reaped by init, does not). */
function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] !== 'Z';
  } catch {
    return false;
  }
}

/** The Cassandra of CASSANDRA_CONTACT_POINTS (infra/env.sh), or undefined when it is not set. */
export function sharedCassandra(): { host: string; port: number } | undefined {
  const first = process.env.CASSANDRA_CONTACT_POINTS?.split(',')[0];
  if (!first) return undefined;
  const [host, port] = first.split(':');
  return { host, port: Number(port ?? 9042) };
}

export async function privateKairosDb(cassandra: { host: string; port: number }): Promise<PrivateKairosDb> {
  const dir = mkdtempSync(join(tmpdir(), 'openpie-kairosdb-'));
  const port = await freePort();
  const keyspace = `kairosdb_crash_${randomBytes(4).toString('hex')}`;
  const env = {
    ...process.env,
    OPENPIE_INFRA_DIR: dir,
    KAIROSDB_PORT: String(port),
    KAIROSDB_TELNET_PORT: String(await freePort()),
    KAIROSDB_KEYSPACE: keyspace,
    KAIROSDB_DATASTORE: 'cassandra',
    CASSANDRA_HOST: cassandra.host,
    CASSANDRA_NATIVE_PORT: String(cassandra.port),
  };
  const script = (command: string) => run('bash', [SCRIPT, command], { env, maxBuffer: 1 << 20 });
  const pid = () => Number(readFileSync(join(dir, 'run', 'kairosdb.pid'), 'utf8').trim());

  return {
    url: `http://127.0.0.1:${port}`,
    async start() {
      await script('start');
      await script('wait');
    },
    async kill() {
      const killed = pid();
      process.kill(killed, 'SIGKILL');
      const deadline = Date.now() + 10_000;
      while (alive(killed)) {
        if (Date.now() > deadline) throw new Error(`KairosDB (pid ${killed}) still runs after SIGKILL`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async dispose() {
      await script('stop').catch(() => undefined);
      const client = new Client({ contactPoints: [`${cassandra.host}:${cassandra.port}`], localDataCenter: process.env.CASSANDRA_LOCAL_DATACENTER ?? 'datacenter1' });
      try {
        await client.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
      } finally {
        await client.shutdown();
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

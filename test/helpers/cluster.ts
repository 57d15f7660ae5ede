import type Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteDatabase } from '../../src/adapters/sqlite/sqlite-database';
import { ServiceOptions } from '../../src/compose/service';
import { cassandraStoreEnv, dropKeyspace, randomKeyspace } from './cassandra';
import { sleep } from './mqtt';
import { dropRedisKeys, testSessionStoreEnv } from './redis';
import { startStack, Stack } from './stack';

const BACKBONE_VARIABLES = ['BACKBONE_URL', 'BACKBONE_USERNAME', 'BACKBONE_PASSWORD'] as const;

/**
 * The backbone variables of this process (`eval "$(infra/env.sh)"` after `infra/start-all.sh`), for the nodes'
 * environment. Without BACKBONE_URL the suite is skipped, or fails under CI, which must run it.
 */
export function backboneEnvOrSkip(ctx: Mocha.Context): Record<string, string> {
  const env = Object.fromEntries(BACKBONE_VARIABLES.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])));
  if (env.BACKBONE_URL) return env;
  const why = 'BACKBONE_URL is not set: run infra/start-all.sh, then eval "$(infra/env.sh)", to test the MQTT backbone';
  if (process.env.CI) throw new Error(`${why} (CI must run the backbone suites)`);
  console.warn(`      skipped: ${why}`);
  ctx.skip();
}

export interface Cluster {
  nodes: Stack[];
  /** The SQLite registry the nodes share (store `sqlite` only); a test may change it behind their backs. */
  database?: Database.Database;
  /** Starts one more node on the same registry and backbone; it is stopped with the others. */
  addNode(): Promise<Stack>;
  /** Stops every node, then closes or drops the registry they share. */
  stop(): Promise<void>;
}

/** Polls GET /readyz until it answers 200 (the backbone check passes once connected and subscribed). */
export async function readyWithin(node: Stack, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const res = await node.http('GET', '/readyz');
    if (res.status === 200) return;
    if (Date.now() > deadline) throw new Error(`node not ready after ${ms} ms: ${res.text}`);
    await sleep(50);
  }
}

/** The registry of a cluster: what each node is started with, and how it is cleaned up. */
interface SharedRegistry {
  env: Record<string, string>;
  database?: Database.Database;
  dispose(): Promise<void>;
}

/**
 * One registry for every node. `sqlite`: one SQLite database object handed to each node (startServer's
 * `sharedDatabase`; points stay per node). `cassandra`: one keyspace, as production nodes share Cassandra.
 */
function sharedRegistry(store: 'sqlite' | 'cassandra'): SharedRegistry {
  if (store === 'cassandra') {
    const points = process.env.CASSANDRA_CONTACT_POINTS;
    if (!points) throw new Error('TEST_STORE=cassandra needs CASSANDRA_CONTACT_POINTS: run infra/start-all.sh, then eval "$(infra/env.sh)"');
    const settings = { contactPoints: points.split(','), localDataCenter: process.env.CASSANDRA_LOCAL_DATACENTER || 'datacenter1' };
    const keyspace = randomKeyspace();
    return { env: cassandraStoreEnv(settings, keyspace), dispose: () => dropKeyspace(settings, keyspace) };
  }
  const dir = mkdtempSync(join(tmpdir(), 'openpie-cluster-'));
  const database = openSqliteDatabase(dir);
  return {
    env: { STORE: 'sqlite' },
    database,
    async dispose() {
      database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * `count` whole services in this process, each with its own HTTP, MQTT and CoAP listeners, aedes and DATA_DIR, on one
 * registry and joined by the backbone in `env`. The store follows TEST_STORE unless `store` is given. Each node's
 * NODE_ID is random, so clusters of other suites on the same broker never mix sessions.
 */
export async function startCluster(
  count: number,
  env: Record<string, string>,
  store: 'sqlite' | 'cassandra' = process.env.TEST_STORE === 'cassandra' ? 'cassandra' : 'sqlite',
  options: Pick<ServiceOptions, 'sharedStateMaxAgeMs'> = {},
): Promise<Cluster> {
  const registry = sharedRegistry(store);
  // Every node digests device credentials with one key (CREDENTIAL_KEY_FILE), as production nodes must.
  const keyDir = mkdtempSync(join(tmpdir(), 'openpie-cluster-key-'));
  // TEST_SESSION_STORE=redis: one session store for the cluster's nodes, as production shares one.
  const sessions = env.SESSION_STORE === undefined ? testSessionStoreEnv() : {};
  const nodes: Stack[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    await registry.dispose();
    rmSync(keyDir, { recursive: true, force: true });
    if (sessions.SESSION_STORE_URL && sessions.SESSION_STORE_PREFIX) await dropRedisKeys(sessions.SESSION_STORE_URL, sessions.SESSION_STORE_PREFIX);
  };
  const run = randomUUID().slice(0, 8);
  const addNode = async () => {
    const node = await startStack({
      env: { ...env, ...sessions, ...registry.env, NODE_ID: `test-${run}-${nodes.length}` },
      sharedDatabase: registry.database,
      credentialKeyFile: join(keyDir, 'credential-key'),
      ...options,
    });
    nodes.push(node);
    await readyWithin(node, 10_000);
    return node;
  };
  try {
    for (let i = 0; i < count; i++) await addNode();
    return { nodes, database: registry.database, addNode, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

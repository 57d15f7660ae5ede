import { createHash, randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'cassandra-driver';
import { CassandraConnection, connectCassandra } from '../../src/adapters/cassandra/cassandra-client';

export interface CassandraTestSettings {
  contactPoints: string[];
  localDataCenter: string;
}

/**
 * The Cassandra of this process's environment (`eval "$(infra/env.sh)"` after `infra/start-all.sh`). Without
 * CASSANDRA_CONTACT_POINTS the suite is skipped, or fails under CI, which must run it.
 */
export function cassandraOrSkip(ctx: Mocha.Context): CassandraTestSettings {
  const points = process.env.CASSANDRA_CONTACT_POINTS;
  if (points) {
    return {
      contactPoints: points.split(',').map((p) => p.trim()).filter((p) => p !== ''),
      localDataCenter: process.env.CASSANDRA_LOCAL_DATACENTER || 'datacenter1',
    };
  }
  const why = 'CASSANDRA_CONTACT_POINTS is not set: run infra/start-all.sh, then eval "$(infra/env.sh)", to test the Cassandra store';
  if (process.env.CI) throw new Error(`${why} (CI must run the Cassandra suites)`);
  console.warn(`      skipped: ${why}`);
  ctx.skip();
}

/** A keyspace name no other suite uses; each suite drops its own (dropKeyspace). */
export const randomKeyspace = () => `openpie_test_${randomBytes(6).toString('hex')}`;

/** A connection as the service makes it, on a keyspace of its own (created with its tables). */
export const connectTestKeyspace = (settings: CassandraTestSettings, keyspace: string): Promise<CassandraConnection> =>
  connectCassandra({ ...settings, keyspace, replication: 1 });

/** Drops the keyspace (infra's cassandra.yaml has auto_snapshot off, so nothing is kept on disk). */
export async function dropKeyspace(settings: CassandraTestSettings, keyspace: string): Promise<void> {
  const client = new Client({ contactPoints: settings.contactPoints, localDataCenter: settings.localDataCenter });
  try {
    await client.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
  } finally {
    await client.shutdown();
  }
}

/** Environment variables that make startStack's service keep its registry and shadows in `keyspace`. */
export const cassandraStoreEnv = (settings: CassandraTestSettings, keyspace: string): Record<string, string> => ({
  STORE: 'cassandra',
  CASSANDRA_CONTACT_POINTS: settings.contactPoints.join(','),
  CASSANDRA_LOCAL_DATACENTER: settings.localDataCenter,
  CASSANDRA_KEYSPACE: keyspace,
  CREDENTIAL_KEY_FILE: credentialKeyFileOf(keyspace),
});

/**
 * The credential key file every node on `keyspace` is given (CREDENTIAL_KEY_FILE, docs/production.md), made once
 * here, before any node starts: nodes with separate DATA_DIRs share one registry, so they must digest with one key.
 */
function credentialKeyFileOf(keyspace: string): string {
  const file = join(tmpdir(), `openpie-credential-key-${keyspace}`);
  if (!existsSync(file)) writeFileSync(file, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600 });
  return file;
}

/** Keyspaces of TEST_STORE=cassandra: one per shared SQLite database (nodes of one cluster), and stacks using each. */
const clusterKeyspaces = new WeakMap<object, string>();
const stacksOn = new Map<string, number>();

/**
 * TEST_STORE=cassandra runs every service startStack starts on Cassandra (CASSANDRA_CONTACT_POINTS): in a keyspace
 * named after its data dir, so a restart on the same data dir finds the same registry, or, for the nodes of one
 * cluster (test/helpers/cluster.ts, which share a database), in one keyspace for all of them. `release` is called
 * when a stack stops; the last stack of a keyspace drops it unless it keeps its data. A suite that sets STORE itself
 * is left alone. Unset: SQLite, as always.
 */
export function testStoreFor(
  dataDir: string,
  opts: { env?: Record<string, string>; sharedDatabase?: object },
): { env: Record<string, string>; release(keepData: boolean): Promise<void> } {
  if (process.env.TEST_STORE !== 'cassandra' || opts.env?.STORE !== undefined) return { env: {}, release: async () => undefined };
  const points = process.env.CASSANDRA_CONTACT_POINTS;
  if (!points) throw new Error('TEST_STORE=cassandra needs CASSANDRA_CONTACT_POINTS: run infra/start-all.sh, then eval "$(infra/env.sh)"');
  const settings = { contactPoints: points.split(','), localDataCenter: process.env.CASSANDRA_LOCAL_DATACENTER || 'datacenter1' };
  let keyspace = `openpie_test_${createHash('sha1').update(dataDir).digest('hex').slice(0, 16)}`;
  if (opts.sharedDatabase) {
    keyspace = clusterKeyspaces.get(opts.sharedDatabase) ?? randomKeyspace();
    clusterKeyspaces.set(opts.sharedDatabase, keyspace);
  }
  stacksOn.set(keyspace, (stacksOn.get(keyspace) ?? 0) + 1);
  return {
    env: cassandraStoreEnv(settings, keyspace),
    async release(keepData) {
      const left = (stacksOn.get(keyspace) ?? 1) - 1;
      if (left > 0) return void stacksOn.set(keyspace, left);
      stacksOn.delete(keyspace);
      if (!keepData) await dropKeyspace(settings, keyspace);
    },
  };
}

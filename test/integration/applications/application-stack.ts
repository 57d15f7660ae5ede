import { join } from 'node:path';
import { createCassandraApplicationStore } from '../../../src/adapters/cassandra/cassandra-application-store';
import { openSqliteDatabase } from '../../../src/adapters/sqlite/sqlite-database';
import { createSqliteApplicationStore } from '../../../src/adapters/sqlite/sqlite-application-store';
import { ApplicationSessions } from '../../../src/applications/port';
import { Applications, createApplications } from '../../../src/applications/service';
import { loadCredentialKey } from '../../../src/devices/credential-key';
import { cassandraStoreEnv, connectTestKeyspace, dropKeyspace, randomKeyspace } from '../../helpers/cassandra';
import { startStack, Stack } from '../../helpers/stack';

/** What a second node over the stack's data sees: its own Applications service, and the rows as stored. */
export interface OtherNode {
  applications: Applications;
  /** The `secret` column of a key's row, as the backend holds it. */
  storedSecret(key: string): Promise<string | undefined>;
  close(): Promise<void>;
}

export interface ApplicationStack {
  stack: Stack;
  /** Another node on the same store and credential key: what the MQTT side's `check(key, secret)` reads. */
  otherNode(sessions?: ApplicationSessions): Promise<OtherNode>;
  stop(): Promise<void>;
}

const noSessions: ApplicationSessions = { disconnect: () => undefined };

/**
 * A whole service on SQLite, or on Cassandra under TEST_STORE=cassandra (in a keyspace of its own, named here so a
 * second node can open it), and a way to open a second node's application keys over the same data.
 */
export async function startApplicationStack(): Promise<ApplicationStack> {
  if (process.env.TEST_STORE !== 'cassandra') {
    const stack = await startStack();
    return {
      stack,
      async otherNode(sessions = noSessions) {
        const db = openSqliteDatabase(stack.dataDir);
        const { key: credentialKey } = loadCredentialKey(join(stack.dataDir, 'credential-key'), { createIfMissing: false });
        return {
          applications: createApplications({ store: createSqliteApplicationStore(db), credentialKey, sessions, now: Date.now }),
          storedSecret: async (key) => (db.prepare('SELECT secret FROM applications WHERE app_key = ?').get(key) as { secret: string } | undefined)?.secret,
          async close() {
            db.close();
          },
        };
      },
      stop: () => stack.stop(),
    };
  }
  const points = process.env.CASSANDRA_CONTACT_POINTS;
  if (!points) throw new Error('TEST_STORE=cassandra needs CASSANDRA_CONTACT_POINTS: eval "$(infra/env.sh)"');
  const settings = { contactPoints: points.split(','), localDataCenter: process.env.CASSANDRA_LOCAL_DATACENTER || 'datacenter1' };
  const keyspace = randomKeyspace();
  const env = cassandraStoreEnv(settings, keyspace);
  const stack = await startStack({ env });
  return {
    stack,
    async otherNode(sessions = noSessions) {
      const conn = await connectTestKeyspace(settings, keyspace);
      const { key: credentialKey } = loadCredentialKey(env.CREDENTIAL_KEY_FILE, { createIfMissing: false });
      return {
        applications: createApplications({ store: createCassandraApplicationStore(conn), credentialKey, sessions, now: Date.now }),
        async storedSecret(key) {
          const row = (await conn.client.execute(`SELECT secret FROM ${conn.tables.applications} WHERE app_key = ?`, [key], { prepare: true })).first();
          return row === null ? undefined : String(row.get('secret'));
        },
        close: () => conn.close(),
      };
    },
    async stop() {
      await stack.stop();
      await dropKeyspace(settings, keyspace);
    },
  };
}

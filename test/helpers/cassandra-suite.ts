import { CassandraTestSettings, cassandraOrSkip, cassandraStoreEnv, dropKeyspace, randomKeyspace } from './cassandra';
import { startStack, Stack } from './stack';

export interface KeyspaceSuite {
  /** The suite's service, STORE=cassandra on its keyspace. */
  readonly stack: Stack;
  readonly settings: CassandraTestSettings;
  readonly keyspace: string;
}

/**
 * Call inside a describe: before its tests, a service on a keyspace of the suite's own (the suite is skipped without
 * Cassandra, and fails under CI); after them, the service stopped and the keyspace dropped.
 */
export function onOwnKeyspace(): KeyspaceSuite {
  let suite: { stack?: Stack; settings?: CassandraTestSettings; keyspace?: string } = {};
  before(async function () {
    const settings = cassandraOrSkip(this);
    const keyspace = randomKeyspace();
    suite = { settings, keyspace };
    suite.stack = await startStack({ env: cassandraStoreEnv(settings, keyspace) });
  });
  after(async () => {
    await suite.stack?.stop();
    if (suite.settings && suite.keyspace) await dropKeyspace(suite.settings, suite.keyspace);
  });
  return {
    get stack() {
      return suite.stack!;
    },
    get settings() {
      return suite.settings!;
    },
    get keyspace() {
      return suite.keyspace!;
    },
  };
}

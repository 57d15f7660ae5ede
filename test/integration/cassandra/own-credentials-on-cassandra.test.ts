import { CassandraTestSettings, cassandraOrSkip, cassandraStoreEnv, dropKeyspace, randomKeyspace } from '../../helpers/cassandra';
import { startStack, Stack } from '../../helpers/stack';
import { ownCredentialsScenarios } from '../rest/own-credentials.scenarios';

describe('bringing devices\' own credentials with STORE=cassandra', function () {
  this.timeout(60_000);
  let settings: CassandraTestSettings;
  let keyspace: string;
  let stack: Stack | undefined;

  before(async function () {
    settings = cassandraOrSkip(this);
    keyspace = randomKeyspace();
    stack = await startStack({ env: cassandraStoreEnv(settings, keyspace) });
  });
  after(async () => {
    await stack?.stop();
    if (keyspace) await dropKeyspace(settings, keyspace);
  });

  ownCredentialsScenarios(() => stack!);
});

import { onOwnKeyspace } from '../../helpers/cassandra-suite';
import { ownCredentialsScenarios } from '../rest/own-credentials.scenarios';

describe('bringing devices\' own credentials with STORE=cassandra', function () {
  this.timeout(60_000);
  const suite = onOwnKeyspace();

  ownCredentialsScenarios(() => suite.stack);
});

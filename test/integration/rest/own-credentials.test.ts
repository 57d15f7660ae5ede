import { startStack, Stack } from '../../helpers/stack';
import { ownCredentialsScenarios } from './own-credentials.scenarios';

describe('bringing devices\' own credentials (SQLite unless TEST_STORE=cassandra)', function () {
  this.timeout(30_000);
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  ownCredentialsScenarios(() => stack);
});

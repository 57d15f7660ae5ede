import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { FAILURE_LIMITS } from '../../../src/ratelimit/failure-throttle';
import { httpFrom } from '../../helpers/from-address';
import { startStack, Stack } from '../../helpers/stack';
import { operatorScenarios } from './operators.scenarios';

describe('operators, roles and the audit log (SQLite unless TEST_STORE=cassandra)', function () {
  this.timeout(30_000);
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  operatorScenarios(() => stack);

  it('throttles guessing an operator\'s key per address and operator, while its right key from another address works', async () => {
    const made = await stack.admin('POST', '/v2/admin/operators', { body: { name: `op-${randomUUID().slice(0, 8)}`, role: 'viewer' } });
    const wrong = `opk.${made.body.name}.${'x'.repeat(43)}`;
    for (let i = 0; i < FAILURE_LIMITS.perPair; i++) {
      expect((await httpFrom('127.0.0.5', stack.baseUrl, 'GET', '/v2/admin/service', { authorization: `Bearer ${wrong}` })).status).to.equal(401);
    }

    const throttled = await httpFrom('127.0.0.5', stack.baseUrl, 'GET', '/v2/admin/service', { authorization: `Bearer ${made.body.key}` });
    const elsewhere = await httpFrom('127.0.0.6', stack.baseUrl, 'GET', '/v2/admin/service', { authorization: `Bearer ${made.body.key}` });
    const bootstrap = await httpFrom('127.0.0.5', stack.baseUrl, 'GET', '/v2/admin/service', { authorization: `Bearer ${stack.server.adminToken}` });

    expect(throttled.status).to.equal(429);
    expect(throttled.headers['retry-after']).to.match(/^\d+$/);
    expect(elsewhere.status).to.equal(200);
    // The admin token is another target: the operator's guesser is not refused it for those failures.
    expect(bootstrap.status).to.equal(200);
  });
});

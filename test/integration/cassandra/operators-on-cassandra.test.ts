import { expect } from 'chai';
import { cassandraStoreEnv } from '../../helpers/cassandra';
import { onOwnKeyspace } from '../../helpers/cassandra-suite';
import { httpClient } from '../../helpers/http';
import { startStack } from '../../helpers/stack';
import { operatorScenarios } from '../operators/operators.scenarios';

// Operators and the audit log with STORE=cassandra: the same scenarios as on SQLite, and a second node of the same
// keyspace that knows an operator made on the first.
describe('operators, roles and the audit log with STORE=cassandra', function () {
  this.timeout(60_000);
  const suite = onOwnKeyspace();

  operatorScenarios(() => suite.stack);

  it('a second node of the keyspace accepts an operator made on the first and shares its audit log', async () => {
    // Both nodes digest with one credential key, as a cluster's nodes must: cassandraStoreEnv names the keyspace's.
    const other = await startStack({ env: cassandraStoreEnv(suite.settings, suite.keyspace) });
    try {
      const made = await suite.stack.admin('POST', '/v2/admin/operators', { body: { name: 'shared-viewer', role: 'viewer' } });
      const onOther = await httpClient(other.baseUrl, { authorization: `Bearer ${made.body.key}` })('GET', '/v2/admin/me');
      const audit = await other.admin('GET', '/v2/admin/audit?actor=bootstrap&limit=5');

      expect(onOther.body).to.include({ name: 'shared-viewer', role: 'viewer' });
      expect(audit.body.entries.map((e: { targets: { name?: string } }) => e.targets.name)).to.include('shared-viewer');
    } finally {
      await other.stop();
    }
  });
});

import { expect } from 'chai';
import { Client } from 'cassandra-driver';
import { CassandraTestSettings, cassandraOrSkip, cassandraStoreEnv, dropKeyspace, randomKeyspace } from '../../helpers/cassandra';
import { aDevice } from '../../helpers/devices';
import { scrape, valueOf } from '../../helpers/prometheus';
import { asDevice } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

/**
 * STORE=cassandra writes a shadow write's revision after its lightweight transaction (docs/device-api.md "Shadow
 * history"): when the history cannot take it, the write stands and the loss is counted, not silent. The fault: the
 * suite's own keyspace loses its history table.
 */
describe('a shadow write whose revision the history cannot keep (Cassandra)', function () {
  this.timeout(120_000);
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

  it('stands, answered 200 and read back, and counts in openpie_shadow_revisions_lost_total', async () => {
    const device = await aDevice(stack!);
    const rest = asDevice(stack!, device);
    expect((await rest('PUT', '/v2/device/shadow/data', { body: { data: { n: 1 } } })).status).to.equal(200);
    const lostBefore = valueOf(await scrape(stack!), 'openpie_shadow_revisions_lost_total');
    const admin = new Client({ contactPoints: settings.contactPoints, localDataCenter: settings.localDataCenter });
    try {
      await admin.execute(`DROP TABLE ${keyspace}.shadow_revisions`);
    } finally {
      await admin.shutdown();
    }

    const written = await rest('PUT', '/v2/device/shadow/data', { body: { data: { n: 2 } } });
    const read = await rest('GET', '/v2/device/shadow/data');
    const lostAfter = valueOf(await scrape(stack!), 'openpie_shadow_revisions_lost_total');

    expect(written.status, written.text).to.equal(200);
    expect(read.body.data).to.deep.equal({ n: 2 });
    expect(lostAfter - lostBefore).to.equal(1);
  });
});

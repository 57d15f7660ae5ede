import { expect } from 'chai';
import { Client } from 'cassandra-driver';
import { onOwnKeyspace } from '../../helpers/cassandra-suite';
import { aDevice } from '../../helpers/devices';
import { scrape, valueOf } from '../../helpers/prometheus';
import { asDevice } from '../../helpers/rest-device';

/**
 * STORE=cassandra writes a shadow write's revision after its lightweight transaction (docs/device-api.md "Shadow
 * history"): when the history cannot take it, the write stands and the loss is counted, not silent. The fault: the
 * suite's own keyspace loses its history table.
 */
describe('a shadow write whose revision the history cannot keep (Cassandra)', function () {
  this.timeout(120_000);
  const suite = onOwnKeyspace();

  it('stands, answered 200 and read back, and counts in openpie_shadow_revisions_lost_total', async () => {
    const device = await aDevice(suite.stack);
    const rest = asDevice(suite.stack, device);
    expect((await rest('PUT', '/v2/device/shadow/data', { body: { data: { n: 1 } } })).status).to.equal(200);
    const lostBefore = valueOf(await scrape(suite.stack), 'openpie_shadow_revisions_lost_total');
    const admin = new Client({ contactPoints: suite.settings.contactPoints, localDataCenter: suite.settings.localDataCenter });
    try {
      await admin.execute(`DROP TABLE ${suite.keyspace}.shadow_revisions`);
    } finally {
      await admin.shutdown();
    }

    const written = await rest('PUT', '/v2/device/shadow/data', { body: { data: { n: 2 } } });
    const read = await rest('GET', '/v2/device/shadow/data');
    const lostAfter = valueOf(await scrape(suite.stack), 'openpie_shadow_revisions_lost_total');

    expect(written.status, written.text).to.equal(200);
    expect(read.body.data).to.deep.equal({ n: 2 });
    expect(lostAfter - lostBefore).to.equal(1);
  });
});

import { expect } from 'chai';
import { CassandraTestSettings, cassandraOrSkip, cassandraStoreEnv, dropKeyspace, randomKeyspace } from '../../helpers/cassandra';
import { coapAs } from '../../helpers/coap';
import { aDevice, TestDevice } from '../../helpers/devices';
import { asDevice } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

/**
 * Issue 25 §1 with STORE=cassandra: two nodes on one keyspace. The rev condition is checked on the shadow each write
 * is planned on and committed by the same lightweight transaction (`IF rev = ?`), so writers expecting one rev can
 * never both succeed, whichever node and transport they use.
 */
describe('conditional shadow writes on two nodes sharing one Cassandra keyspace', function () {
  this.timeout(120_000);
  let settings: CassandraTestSettings;
  let keyspace: string;
  let nodes: Stack[] = [];

  before(async function () {
    settings = cassandraOrSkip(this);
    keyspace = randomKeyspace();
    nodes.push(await startStack({ env: cassandraStoreEnv(settings, keyspace) }));
    nodes.push(await startStack({ env: cassandraStoreEnv(settings, keyspace) }));
  });
  after(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    nodes = [];
    if (keyspace) await dropKeyspace(settings, keyspace);
  });

  const rest = (node: number, device: TestDevice) => asDevice(nodes[node], device);

  it('lets exactly one of 24 concurrent writers expecting the same rev through (REST and CoAP, both nodes)', async () => {
    const device = await aDevice(nodes[0]);
    // Each node writes once first, so each remembers the shadow and must still lose to the other's commit.
    expect((await rest(0, device)('PUT', '/v2/device/shadow/data', { body: { data: { n: 0 } } })).status).to.equal(200);
    const primed = await rest(1, device)('PUT', '/v2/device/shadow/data', { body: { data: { n: 1 } } });
    expect(primed.status, primed.text).to.equal(200);
    const rev = primed.body.rev as number;

    const writes = Array.from({ length: 24 }, async (_, i) => {
      const node = i % 2;
      if (i % 4 < 2) {
        const res = await rest(node, device)('PUT', '/v2/device/shadow/data', { headers: { 'if-match': `"${rev}"` }, body: { data: { who: i } } });
        return { ok: res.status === 200, refused: res.status === 412 && res.body.code === 'REV_MISMATCH', rev: res.body.rev, text: res.text };
      }
      const res = await coapAs(nodes[node].coapUrl, device)('PUT', '/shadow/data', {
        payload: { data: { who: i } },
        options: { 'If-Match': Buffer.of(rev) },
      });
      return { ok: res.code === '2.04', refused: res.code === '4.12' && res.body.code === 'REV_MISMATCH', rev: res.body.rev, text: res.text };
    });
    const outcomes = await Promise.all(writes);

    const won = outcomes.filter((o) => o.ok);
    expect(won, JSON.stringify(outcomes)).to.have.length(1);
    expect(won[0].rev).to.equal(rev + 1);
    for (const o of outcomes.filter((x) => !x.ok)) {
      expect(o.refused, o.text).to.equal(true);
      expect(o.rev).to.equal(rev + 1);
    }
    for (const node of [0, 1]) expect((await rest(node, device)('GET', '/v2/device/shadow/data')).body.rev).to.equal(rev + 1);
  });

  it('judges If-Match on the stored shadow, not on the older one a node remembers', async () => {
    const device = await aDevice(nodes[0]);
    expect((await rest(0, device)('PUT', '/v2/device/shadow/data', { body: { data: { a: 1 } } })).body.rev).to.equal(1);
    expect((await rest(1, device)('PUT', '/v2/device/shadow/data', { body: { data: { a: 2 } } })).body.rev).to.equal(2);

    const fresh = await rest(0, device)('PUT', '/v2/device/shadow/data', { headers: { 'if-match': '"2"' }, body: { data: { a: 3 } } });
    expect(fresh.status, fresh.text).to.equal(200);
    expect(fresh.body.rev).to.equal(3);
    const stale = await rest(1, device)('PUT', '/v2/device/shadow/data', { headers: { 'if-match': '"2"' }, body: { data: { a: 4 } } });
    expect(stale.status, stale.text).to.equal(412);
    expect(stale.body.rev).to.equal(3);
  });

  it('writes with If-None-Match: * only once, whichever node is asked first', async () => {
    const device = await aDevice(nodes[0]);
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        rest(i % 2, device)('POST', '/v2/device/shadow/data', { headers: { 'if-none-match': '*' }, body: { data: { first: i } } })),
    );
    expect(outcomes.filter((o) => o.status === 200)).to.have.length(1);
    expect(outcomes.filter((o) => o.status === 412)).to.have.length(7);
    expect((await rest(1, device)('GET', '/v2/device/shadow/data')).headers.get('etag')).to.equal('"1"');
  });
});

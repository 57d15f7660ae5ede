import { expect } from 'chai';
import { MqttClient } from 'mqtt';
import { backboneEnvOrSkip, Cluster, startCluster } from '../../helpers/cluster';
import { CassandraTestSettings, cassandraOrSkip, cassandraStoreEnv, dropKeyspace, randomKeyspace } from '../../helpers/cassandra';
import { coapAs } from '../../helpers/coap';
import { aGroup, TestDevice } from '../../helpers/devices';
import { collect, connectDevice, endAll, sleep } from '../../helpers/mqtt';
import { UPDATED } from '../../helpers/mqtt-shadow';
import { asDevice } from '../../helpers/rest-device';
import { Stack, startStack } from '../../helpers/stack';

/** A device listening to `@shadow/data/updated` only, with every notice it gets, parsed, in order. */
async function listener(stack: Stack, device: TestDevice): Promise<{ client: MqttClient; notices: () => any[] }> {
  const client = await connectDevice(stack.mqttUrl, device);
  await client.subscribeAsync(UPDATED, { qos: 1 });
  const seen = collect(client);
  return { client, notices: () => seen.filter((m) => m.topic === UPDATED).map((m) => JSON.parse(m.payload)) };
}

/** Waits until `count` notices arrived, then a little longer to see that no more come. */
async function settled(read: () => any[], count: number, ms = 3000): Promise<any[]> {
  const until = Date.now() + ms;
  while (read().length < count && Date.now() < until) await sleep(20);
  await sleep(150);
  return read();
}

/** What every applied write tells its device, whoever wrote it and however (issue 18 §2). */
function noticeStories(store: () => Stack) {
  let device: TestDevice;
  let mate: TestDevice;
  let client: MqttClient;
  let notices: () => any[];
  beforeEach(async () => {
    [device, mate] = await aGroup(store(), 2);
    ({ client, notices } = await listener(store(), device));
  });
  afterEach(() => endAll(client));
  const rest = (d: TestDevice) => asDevice(store(), d);

  it('REST merge by the device itself: one notice with what was written and the shadow\'s rev, modified and timestamp', async () => {
    const res = await rest(device)('PUT', '/v2/device/shadow/data', { body: { data: { temp: 21, config: { level: 2 } } } });

    const [notice] = await settled(notices, 1);
    expect(res.status, res.text).to.equal(200);
    expect(notice).to.deep.equal({
      deviceid: device.deviceid,
      data: { temp: 21, config: { level: 2 } },
      rev: res.body.rev,
      modified: res.body.modified,
      timestamp: res.body.timestamp,
    });
    expect(notices()).to.have.length(1);
  });

  it('REST overwrite: the whole new document, marked "merged": false', async () => {
    await rest(device)('PUT', '/v2/device/shadow/data', { body: { data: { a: 1, b: 2 } } });

    await rest(device)('POST', '/v2/device/shadow/data', { body: { data: { b: 3 } } });

    const all = await settled(notices, 2);
    expect(all.map((n) => [n.data, n.merged])).to.deep.equal([[{ a: 1, b: 2 }, undefined], [{ b: 3 }, false]]);
  });

  it('a group mate (a dashboard) writing through ?alias= reaches the device; the mate hears nothing of it', async () => {
    const mateListener = await listener(store(), mate);
    try {
      await rest(mate)('PUT', `/v2/device/shadow/data?alias=${encodeURIComponent(device.alias)}`, { body: { data: { lamp: 'on' } } });

      const [notice] = await settled(notices, 1);
      expect(notice).to.include({ deviceid: device.deviceid, rev: 1 });
      expect(notice.data).to.deep.equal({ lamp: 'on' });
      expect(mateListener.notices()).to.deep.equal([]);
    } finally {
      await endAll(mateListener.client);
    }
  });

  it('a batch: one notice for the one write, with what its applied items wrote together, nulls kept', async () => {
    await rest(device)('PUT', '/v2/device/shadow/data', { body: { data: { gone: 1, keep: 1 } } });
    const t0 = Date.now();

    const res = await rest(device)('PUT', '/v2/device/shadow/batch', {
      body: { batch: [{ data: { temp: 20, o: { x: 1 } }, ts: t0 + 1 }, { data: { temp: 22, gone: null, o: { y: 2 } }, ts: t0 + 2 }] },
    });

    expect(res.status, res.text).to.equal(200);
    const all = await settled(notices, 2);
    expect(all).to.have.length(2);
    expect(all[1]).to.deep.include({ rev: 2, timestamp: t0 + 2, data: { temp: 22, o: { x: 1, y: 2 }, gone: null } });
  });

  it('CoAP writes, single and batch, are announced like REST ones', async () => {
    const coap = coapAs(store().coapUrl, device);

    const single = await coap('PUT', '/shadow/data', { payload: { data: { humid: 40 } } });
    const batch = await coap('PUT', '/shadow/batch', { payload: { batch: [{ data: { humid: 41 }, ts: Date.now() + 1 }] } });

    expect([single.code, batch.code]).to.deep.equal(['2.04', '2.04']);
    const all = await settled(notices, 2);
    expect(all.map((n) => [n.rev, n.data])).to.deep.equal([[1, { humid: 40 }], [2, { humid: 41 }]]);
  });

  it('an operator\'s write through the admin API (the console) is announced', async () => {
    const res = await store().admin('PUT', `/v2/admin/devices/${device.deviceid}/shadow`, { body: { data: { mode: 'away' } } });

    expect(res.status, res.text).to.equal(200);
    const [notice] = await settled(notices, 1);
    expect(notice.data).to.deep.equal({ mode: 'away' });
  });

  it('a write with "trigger": false is announced too: it only keeps triggers quiet', async () => {
    await rest(device)('PUT', '/v2/device/shadow/data', { body: { data: { quiet: true }, trigger: false } });

    expect((await settled(notices, 1)).map((n) => n.data)).to.deep.equal([{ quiet: true }]);
  });

  it('nothing for a back-dated write, which changes nothing, nor for a refused one', async () => {
    await rest(device)('PUT', '/v2/device/shadow/data', { body: { data: { t: 2 } } });

    const old = await rest(device)('PUT', '/v2/device/shadow/data', { body: { data: { t: 1 }, timestamp: Date.now() - 60_000 } });
    const bad = await rest(device)('PUT', '/v2/device/shadow/data', { body: { data: 'not an object' } });

    expect(old.body.applied).to.equal(false);
    expect(bad.status).to.equal(400);
    expect((await settled(notices, 1, 500)).map((n) => n.data)).to.deep.equal([{ t: 2 }]);
  });

  it('a persistent session subscribed at QoS 1 gets the notices of the writes made while it was away, in order', async () => {
    const away = await connectDevice(store().mqttUrl, mate, { clean: false });
    await away.subscribeAsync(UPDATED, { qos: 1 });
    await endAll(away);
    await rest(device)('PUT', `/v2/device/shadow/data?alias=${encodeURIComponent(mate.alias)}`, { body: { data: { cmd: 'open' } } });
    await rest(device)('PUT', `/v2/device/shadow/data?alias=${encodeURIComponent(mate.alias)}`, { body: { data: { cmd: 'close' } } });

    const back = await connectDevice(store().mqttUrl, mate, { clean: false });
    const seen = collect(back);
    try {
      const queued = await settled(() => seen.filter((m) => m.topic === UPDATED).map((m) => JSON.parse(m.payload)), 2);
      expect(queued.map((n) => [n.rev, n.data.cmd])).to.deep.equal([[1, 'open'], [2, 'close']]);
    } finally {
      await endAll(back);
    }
  });

  it('once per write and in write order, rev by rev, when writes of several sources race', async () => {
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 20; i++) {
      const writer = i % 2 === 0 ? rest(device)('PUT', '/v2/device/shadow/data', { body: { data: { n: i } } })
        : rest(mate)('PUT', `/v2/device/shadow/data?alias=${encodeURIComponent(device.alias)}`, { body: { data: { n: i } } });
      writes.push(writer);
    }
    await Promise.all(writes);

    const all = await settled(notices, 20);
    expect(all.map((n) => n.rev)).to.deep.equal(Array.from({ length: 20 }, (_, i) => i + 1));
  });
}

describe('@shadow/data/updated on every applied write, whatever its source (issue 18 §2)', function () {
  this.timeout(30_000);

  describe('one node, SQLite', () => {
    let stack: Stack;
    before(async () => {
      stack = await startStack();
    });
    after(() => stack.stop());
    noticeStories(() => stack);
  });

  describe('one node, STORE=cassandra', () => {
    let settings: CassandraTestSettings;
    let keyspace: string | undefined;
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
    noticeStories(() => stack!);
  });

  describe('three nodes over the backbone', () => {
    let cluster: Cluster | undefined;
    before(async function () {
      cluster = await startCluster(3, backboneEnvOrSkip(this));
    });
    after(() => cluster?.stop());

    it('a write through any node reaches the device on another, once, in rev order', async () => {
      const [a, b, c] = cluster!.nodes;
      const [device, mate] = await aGroup(a, 2);
      const { client, notices } = await listener(a, device);
      try {
        await asDevice(b, device)('PUT', '/v2/device/shadow/data', { body: { data: { from: 'b' } } });
        await asDevice(c, mate)('PUT', `/v2/device/shadow/data?alias=${encodeURIComponent(device.alias)}`, { body: { data: { from: 'c' } } });
        await coapAs(b.coapUrl, device)('PUT', '/shadow/data', { payload: { data: { from: 'b/coap' } } });

        const all = await settled(notices, 3, 5000);
        expect(all.map((n) => [n.rev, n.data.from])).to.deep.equal([[1, 'b'], [2, 'c'], [3, 'b/coap']]);
      } finally {
        await endAll(client);
      }
    });
  });
});

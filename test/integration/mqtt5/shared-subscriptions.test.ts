import { expect } from 'chai';
import { aDevice, aGroup } from '../../helpers/devices';
import { connectDevice, endAll, sleep } from '../../helpers/mqtt';
import { connackOf5, connect5, disconnectOf, publishesTo, v5 } from '../../helpers/mqtt5';
import { wireSession } from '../../helpers/mqtt-wire';
import { startStack, Stack } from '../../helpers/stack';

describe('MQTT 5: shared subscriptions within a group ($share/{name}/@msg/...)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('CONNACK says shared subscriptions are available (§3.2.2.3.13)', async () => {
    const device = await aDevice(stack);
    const connack = await connackOf5(stack.mqttUrl, v5(device));
    expect(connack.properties?.sharedSubscriptionAvailable).to.not.equal(false);
  });

  it('[MQTT-4.8.2-3] each message goes to one member of the share, in turn; a plain subscriber gets every one', async () => {
    const [w1, w2, watcher, publisher] = await aGroup(stack, 4);
    const workers = [await connect5(stack.mqttUrl, w1), await connect5(stack.mqttUrl, w2)];
    const plain = await connect5(stack.mqttUrl, watcher);
    const tx = await connect5(stack.mqttUrl, publisher);
    try {
      for (const w of workers) {
        const [grant] = await w.client.subscribeAsync('$share/workers/@msg/jobs/+', { qos: 1 });
        expect(grant.qos).to.equal(1);
      }
      await plain.client.subscribeAsync('@msg/jobs/+', { qos: 1 });
      const [got1, got2, all] = [publishesTo(workers[0].client), publishesTo(workers[1].client), publishesTo(plain.client)];

      for (let i = 0; i < 6; i++) await tx.client.publishAsync(`@msg/jobs/${i}`, `job${i}`, { qos: 1 });
      await sleep(300);

      expect(got1.length + got2.length).to.equal(6);
      expect(got1.length).to.equal(3);
      expect([...got1, ...got2].map((p) => p.topic).sort()).to.deep.equal([0, 1, 2, 3, 4, 5].map((i) => `@msg/jobs/${i}`));
      expect(all).to.have.length(6);
    } finally {
      await endAll(...workers.map((w) => w.client), plain.client, tx.client);
    }
  });

  it('shares are per group: a device of another group with the same share name gets nothing of this group', async () => {
    const [member, publisher] = await aGroup(stack, 2);
    const stranger = await aDevice(stack, { projectid: member.projectid });
    const m = await connect5(stack.mqttUrl, member);
    const s = await connect5(stack.mqttUrl, stranger);
    const tx = await connect5(stack.mqttUrl, publisher);
    try {
      await m.client.subscribeAsync('$share/w/@msg/t', { qos: 1 });
      await s.client.subscribeAsync('$share/w/@msg/t', { qos: 1 });
      const [mine, theirs] = [publishesTo(m.client), publishesTo(s.client)];
      for (let i = 0; i < 3; i++) await tx.client.publishAsync('@msg/t', `x${i}`, { qos: 1 });
      await sleep(200);
      expect(mine).to.have.length(3);
      expect(theirs).to.deep.equal([]);
    } finally {
      await endAll(m.client, s.client, tx.client);
    }
  });

  it('a member that leaves (UNSUBSCRIBE or disconnect) gets no more; the others get all', async () => {
    const [w1, w2, w3, publisher] = await aGroup(stack, 4);
    const [a, b, c] = [await connect5(stack.mqttUrl, w1), await connect5(stack.mqttUrl, w2), await connect5(stack.mqttUrl, w3)];
    const tx = await connect5(stack.mqttUrl, publisher);
    try {
      for (const w of [a, b, c]) await w.client.subscribeAsync('$share/pool/@msg/work', { qos: 1 });
      await a.client.unsubscribeAsync('$share/pool/@msg/work');
      await c.client.endAsync();
      const [gotA, gotB] = [publishesTo(a.client), publishesTo(b.client)];
      for (let i = 0; i < 4; i++) await tx.client.publishAsync('@msg/work', `w${i}`, { qos: 1 });
      await sleep(200);
      expect(gotA).to.deep.equal([]);
      expect(gotB.map((p) => p.payload.toString())).to.deep.equal(['w0', 'w1', 'w2', 'w3']);
    } finally {
      await endAll(a.client, b.client, c.client, tx.client);
    }
  });

  it('[MQTT-4.8.2-3] a member gets a message at most at its granted QoS', async () => {
    const [w, publisher] = await aGroup(stack, 2);
    const member = await connect5(stack.mqttUrl, w);
    const tx = await connect5(stack.mqttUrl, publisher);
    try {
      await member.client.subscribeAsync('$share/q/@msg/qos', { qos: 0 });
      const got = publishesTo(member.client);
      await tx.client.publishAsync('@msg/qos', 'x', { qos: 2 });
      await sleep(150);
      expect(got.map((p) => p.qos)).to.deep.equal([0]);
    } finally {
      await endAll(member.client, tx.client);
    }
  });

  it('a shared filter outside @msg/ is refused with 0x87; a malformed share with 0x8F [MQTT-4.8.2-1] [MQTT-4.8.2-2]', async () => {
    const device = await aDevice(stack);
    const wire = wireSession(stack.server.mqttPort, 5);
    try {
      wire.send({ cmd: 'connect', protocolVersion: 5, clientId: device.deviceid, username: device.token, clean: true, keepalive: 60 });
      await wire.next('connack');
      const filters = ['$share/w/@private/#', '$share//@msg/a', '$share/w+/@msg/a', '$share/ok/@msg/a'];
      wire.send({ cmd: 'subscribe', messageId: 1, subscriptions: filters.map((topic) => ({ topic, qos: 1 as const })) });
      expect((await wire.next('suback')).granted).to.deep.equal([0x87, 0x8f, 0x8f, 1]);
    } finally {
      wire.destroy();
    }
  });

  it('[MQTT-3.8.3-4] No Local on a shared subscription is a Protocol Error: DISCONNECT 0x82, no SUBACK', async () => {
    const device = await aDevice(stack);
    const wire = wireSession(stack.server.mqttPort, 5);
    try {
      wire.send({ cmd: 'connect', protocolVersion: 5, clientId: device.deviceid, username: device.token, clean: true, keepalive: 60 });
      await wire.next('connack');
      wire.send({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: '$share/w/@msg/a', qos: 1, nl: true }] });
      expect((await wire.next('disconnect')).reasonCode).to.equal(0x82);
      await wire.closed;
      expect(wire.received.map((p) => p.cmd)).to.deep.equal(['connack', 'disconnect']);
    } finally {
      wire.destroy();
    }
  });

  it('a persistent session keeps its shared subscription across a reconnect', async () => {
    const [w, publisher] = await aGroup(stack, 2);
    const options = { clean: false, properties: { sessionExpiryInterval: 60 } };
    const first = await connect5(stack.mqttUrl, w, options);
    await first.client.subscribeAsync('$share/keep/@msg/kept', { qos: 1 });
    await first.client.endAsync();
    const again = await connect5(stack.mqttUrl, w, options);
    const tx = await connect5(stack.mqttUrl, publisher);
    try {
      expect(again.connack.sessionPresent).to.equal(true);
      const got = publishesTo(again.client);
      await tx.client.publishAsync('@msg/kept', 'still', { qos: 1 });
      await sleep(150);
      expect(got.map((p) => p.payload.toString())).to.deep.equal(['still']);
    } finally {
      await endAll(again.client, tx.client);
    }
  });

  it('MQTT 3.1.1 has no shared subscriptions: $share/... is refused with 0x80 as before', async () => {
    const device = await aDevice(stack);
    const client = await connectDevice(stack.mqttUrl, device);
    try {
      const granted = await client.subscribeAsync('$share/w/@msg/a').then(
        (g) => g.map((x) => x.qos),
        (err: { packet?: { granted?: number[] } }) => err.packet?.granted,
      );
      expect(granted).to.deep.equal([0x80]);
    } finally {
      await endAll(client);
    }
  });

  it('a device disconnected by the service leaves its shares (DISCONNECT 0x98)', async () => {
    const [w1, w2, publisher] = await aGroup(stack, 3);
    const a = await connect5(stack.mqttUrl, w1);
    const b = await connect5(stack.mqttUrl, w2);
    const tx = await connect5(stack.mqttUrl, publisher);
    try {
      await a.client.subscribeAsync('$share/k/@msg/k', { qos: 1 });
      await b.client.subscribeAsync('$share/k/@msg/k', { qos: 1 });
      const told = disconnectOf(a.client);
      await stack.admin('PATCH', `/v2/admin/devices/${w1.deviceid}`, { body: { enabled: false } });
      await told;
      const got = publishesTo(b.client);
      for (let i = 0; i < 3; i++) await tx.client.publishAsync('@msg/k', `k${i}`, { qos: 1 });
      await sleep(150);
      expect(got).to.have.length(3);
    } finally {
      await endAll(a.client, b.client, tx.client);
    }
  });
});

import { expect } from 'chai';
import { aDevice, aGroup } from '../../helpers/devices';
import { endAll, sleep } from '../../helpers/mqtt';
import { presenceBecomes, presenceOf } from '../../helpers/mqtt-expect';
import { connect5, nextPublish, publishesTo, v5 } from '../../helpers/mqtt5';
import { wireSession } from '../../helpers/mqtt-wire';
import { startStack, Stack } from '../../helpers/stack';
import { connackOfEmptyClientId5, connectCollecting, connectPacketOf, cut, publishesOf, QUIET_MS, untilCount, untilSeen, wiredDevice } from '../../helpers/conformance-mqtt';

/**
 * MQTT 5 (OASIS mqtt-v5.0-os): the behaviours the Eclipse Paho interoperability test for MQTT 5 shares with 3.1.1,
 * written from the normative statements each test names, on our namespace (topics as in v311.test.ts). What MQTT 5
 * adds is in v5-features.test.ts, v5-will-shared.test.ts, v5-restart.test.ts and v5-cluster.test.ts.
 */
describe('MQTT 5 conformance: the behaviours shared with 3.1.1 (Paho interoperability)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  const persistent = { clean: false, properties: { sessionExpiryInterval: 300 } };

  describe('basic', () => {
    it('[MQTT-3.1.4-5] [MQTT-3.8.4-1] [MQTT-3.3.4-1] [MQTT-3.8.4-8] connects again after a DISCONNECT, and gets its own QoS 0, 1 and 2 publishes at their QoS', async () => {
      const device = await aDevice(stack);
      await (await connect5(stack.mqttUrl, device)).client.endAsync();
      const { client, connack } = await connect5(stack.mqttUrl, device);
      try {
        expect(connack.reasonCode).to.equal(0);
        const [grant] = await client.subscribeAsync('@msg/TopicA', { qos: 2 });
        expect(grant.qos).to.equal(2);
        const seen = publishesTo(client);

        for (const qos of [0, 1, 2] as const) await client.publishAsync('@msg/TopicA', `qos ${qos}`, { qos });

        await untilCount(seen, 3);
        expect(seen.map((p) => [p.payload.toString(), p.qos]).sort()).to.deep.equal([['qos 0', 0], ['qos 1', 1], ['qos 2', 2]]);
      } finally {
        await endAll(client);
      }
    });

    it('[MQTT-3.1.0-2] a second CONNECT on a connection is a Protocol Error: the connection is closed', async () => {
      const device = await aDevice(stack);
      const { wire } = await wiredDevice(stack.server.mqttPort, 5, device);
      try {
        wire.send(connectPacketOf(device, 5));
        await wire.closed;
        // One CONNACK only [MQTT-3.2.0-2]; a DISCONNECT 0x82 (Protocol Error) before the close is allowed.
        const after = wire.received.slice(1).map((p) => [p.cmd, p.cmd === 'disconnect' ? p.reasonCode : undefined]);
        expect([[], [['disconnect', 0x82]]]).to.deep.include(after);
      } finally {
        wire.destroy();
      }
    });

    it('[MQTT-3.1.2-1] a CONNECT with another protocol name is not served: no CONNACK 0x00, the connection is closed', async () => {
      const device = await aDevice(stack);
      const wire = wireSession(stack.server.mqttPort, 5);
      try {
        wire.send(connectPacketOf(device, 5, { protocolId: 'hj' as 'MQTT' }));
        await wire.closed;
        // The Server MAY answer 0x84 (Unsupported Protocol Version) first; it must not accept.
        expect(wire.received.filter((p) => p.cmd !== 'connack' || p.reasonCode !== 0x84)).to.deep.equal([]);
      } finally {
        wire.destroy();
      }
    });
  });

  it('retained messages: [MQTT-3.3.1-5] [MQTT-3.3.1-9] [MQTT-3.3.2-17] a new subscription gets each retained message with its User Properties, and [MQTT-3.3.1-6] [MQTT-3.3.1-7] an empty one clears it', async () => {
    const [device, newcomer] = await aGroup(stack, 2);
    const { client } = await connect5(stack.mqttUrl, device);
    const later = await connect5(stack.mqttUrl, newcomer);
    const retained = [['@msg/TopicA/B', 0], ['@msg/Topic/C', 1], ['@msg/TopicA/C', 2]] as const;
    const userProperties = { a: '2', c: '3' };
    try {
      for (const [topic, qos] of retained) await client.publishAsync(topic, `qos ${qos}`, { qos, retain: true, properties: { userProperties } });
      const seen = publishesTo(client);
      await client.subscribeAsync('@msg/+/+', { qos: 2 });
      await untilCount(seen, 3);
      expect(seen.map((p) => [p.topic, p.qos, p.retain, p.properties?.userProperties]).sort((a, b) => Number(a[1]) - Number(b[1])))
        .to.deep.equal(retained.map(([topic, qos]) => [topic, qos, true, userProperties]));

      for (const [topic, qos] of retained) await client.publishAsync(topic, '', { qos, retain: true });
      const seenLater = publishesTo(later.client);
      await later.client.subscribeAsync('@msg/+/+', { qos: 2 });
      await sleep(QUIET_MS);
      expect(seenLater).to.deep.equal([]);
    } finally {
      await endAll(client, later.client);
    }
  });

  describe('will', () => {
    it('[MQTT-3.1.2-8] [MQTT-3.1.3-10] the will of a connection closed without DISCONNECT is published with its User Properties in order', async () => {
      const [dying, listener] = await aGroup(stack, 2);
      const will = { topic: '@msg/Topic/C', payload: Buffer.from('will message'), qos: 1 as const, retain: false, properties: { userProperties: { c: '3', a: '2' } } };
      const tx = await connect5(stack.mqttUrl, dying, { will, keepalive: 2 });
      const rx = await connect5(stack.mqttUrl, listener, persistent);
      try {
        await rx.client.subscribeAsync('@msg/Topic/C', { qos: 2 });
        const arrived = nextPublish(rx.client);

        cut(tx.client);

        const packet = await arrived;
        expect(packet.payload.toString()).to.equal('will message');
        expect(Object.entries(packet.properties?.userProperties ?? {})).to.deep.equal([['c', '3'], ['a', '2']]);
      } finally {
        await endAll(tx.client, rx.client);
      }
    });

    it('[MQTT-3.14.4-3] [MQTT-3.1.2-10] a DISCONNECT (0x00) discards the will', async () => {
      const [leaving, listener, mate] = await aGroup(stack, 3);
      const tx = await connect5(stack.mqttUrl, leaving, { will: { topic: '@msg/Topic/C', payload: Buffer.from('will'), qos: 1, retain: false } });
      const rx = await connect5(stack.mqttUrl, listener);
      const other = await connect5(stack.mqttUrl, mate);
      try {
        await rx.client.subscribeAsync('@msg/Topic/C', { qos: 2 });
        const seen = publishesTo(rx.client);
        await tx.client.endAsync();
        expect(await presenceBecomes(stack, leaving, 0)).to.equal(0);
        await other.client.publishAsync('@msg/Topic/C', 'after', { qos: 1 });
        await untilSeen(seen, (p) => p.payload.toString() === 'after');
        expect(seen.map((p) => p.payload.toString())).to.deep.equal(['after']);
      } finally {
        await endAll(tx.client, rx.client, other.client);
      }
    });
  });

  describe('zero-length ClientID', () => {
    for (const cleanStart of [true, false]) {
      it(`[MQTT-3.1.3-6] [MQTT-3.1.3-7] [MQTT-3.2.2-16] Clean Start ${Number(cleanStart)}: accepted, with the device id its token names as Assigned Client Identifier`, async () => {
        const device = await aDevice(stack);
        const connack = await connackOfEmptyClientId5(stack.server.mqttPort, device.token, cleanStart);
        expect([connack.reasonCode, connack.properties?.assignedClientIdentifier]).to.deep.equal([0, device.deviceid]);
      });
    }

    it('[MQTT-3.1.3-7] the connection is then served as that device', async () => {
      const [device, mate] = await aGroup(stack, 2);
      const { client, connack } = await connect5(stack.mqttUrl, device, { clientId: '' });
      const tx = await connect5(stack.mqttUrl, mate);
      try {
        expect(connack.properties?.assignedClientIdentifier).to.equal(device.deviceid);
        expect(await presenceOf(stack, device)).to.equal(1);
        await client.subscribeAsync('@msg/TopicA', { qos: 1 });
        const arrived = nextPublish(client);
        await tx.client.publishAsync('@msg/TopicA', 'to the assigned id', { qos: 1 });
        expect((await arrived).payload.toString()).to.equal('to the assigned id');
      } finally {
        await endAll(client, tx.client);
      }
    });
  });

  it('offline queueing: [MQTT-3.1.2-23] [MQTT-3.1.2-5] [MQTT-3.2.2-3] [MQTT-4.5.0-1] a session with an expiry interval gets the QoS 1 and 2 messages that came while it was away', async () => {
    const [device, publisher] = await aGroup(stack, 2);
    const first = await connect5(stack.mqttUrl, device, persistent);
    await first.client.subscribeAsync('@msg/+/+', { qos: 2 });
    await first.client.endAsync();
    const tx = await connect5(stack.mqttUrl, publisher);
    for (const [topic, qos] of [['@msg/TopicA/B', 0], ['@msg/Topic/C', 1], ['@msg/TopicA/C', 2]] as const) await tx.client.publishAsync(topic, `qos ${qos}`, { qos });

    const again = await connectCollecting(stack.mqttUrl, v5(device, { clean: false }));
    try {
      const { seen } = again;
      expect(again.connack.sessionPresent).to.equal(true);
      await tx.client.publishAsync('@msg/TopicA/marker', 'marker', { qos: 1 });
      await untilSeen(seen, (p) => p.payload.toString() === 'marker');
      const queued = seen.map((p) => p.payload.toString()).filter((p) => p !== 'qos 0' && p !== 'marker');
      expect(queued).to.deep.equal(['qos 1', 'qos 2']);
    } finally {
      await endAll(again.client, tx.client);
    }
  });

  it('overlapping subscriptions: [MQTT-3.3.4-2] a message matching two subscriptions comes once at the higher QoS, or once per subscription', async () => {
    const device = await aDevice(stack);
    const { client } = await connect5(stack.mqttUrl, device);
    try {
      await client.subscribeAsync({ '@msg/TopicA/#': { qos: 2 }, '@msg/TopicA/+': { qos: 1 }, '@msg/marker': { qos: 1 } });
      const seen = publishesTo(client);

      await client.publishAsync('@msg/TopicA/C', 'overlapping topic filters', { qos: 2 });
      await client.publishAsync('@msg/marker', 'marker', { qos: 1 });

      await untilSeen(seen, (p) => p.topic === '@msg/marker');
      const copies = seen.filter((p) => p.topic === '@msg/TopicA/C').map((p) => p.qos).sort();
      expect([[2], [1, 2]], `QoS of the copies: ${copies}`).to.deep.include(copies);
    } finally {
      await endAll(client);
    }
  });

  it('keepalive: [MQTT-3.1.2-22] [MQTT-3.1.2-8] a client silent for 1.5 times its Keep Alive is disconnected, and its will is published', async () => {
    const [silent, listener] = await aGroup(stack, 2);
    const rx = await connect5(stack.mqttUrl, listener, { keepalive: 0 });
    try {
      await rx.client.subscribeAsync('@msg/TopicA/keepalive', { qos: 2 });
      const arrived = nextPublish(rx.client, () => true, 5000);
      const { wire, connack } = await wiredDevice(stack.server.mqttPort, 5, silent, {
        keepalive: 1,
        will: { topic: '@msg/TopicA/keepalive', payload: Buffer.from('keepalive expiry'), qos: 1, retain: false },
      });
      const connectedAt = Date.now();

      await wire.closed;
      const silentFor = Date.now() - connectedAt;

      expect(connack.properties?.serverKeepAlive, 'the client\'s own Keep Alive is in force').to.equal(undefined);
      expect(silentFor).to.be.within(1000, 3000);
      expect((await arrived).payload.toString()).to.equal('keepalive expiry');
    } finally {
      await endAll(rx.client);
    }
  });

  it('redelivery: [MQTT-4.4.0-1] [MQTT-3.3.1-1] [MQTT-3.2.2-3] unacknowledged QoS 1 and 2 messages are sent again on reconnection, with DUP 1 and their packet identifiers', async () => {
    const [device, publisher] = await aGroup(stack, 2);
    const port = stack.server.mqttPort;
    const session = { clean: false, properties: { sessionExpiryInterval: 300 } };
    const first = (await wiredDevice(port, 5, device, session)).wire;
    first.send({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: '@msg/TopicA/#', qos: 2 }] });
    await first.next('suback');
    const tx = await connect5(stack.mqttUrl, publisher);
    try {
      await tx.client.publishAsync('@msg/TopicA/B', 'qos 1', { qos: 1 });
      await tx.client.publishAsync('@msg/TopicA/C', 'qos 2', { qos: 2 });
      const sent = [await first.next('publish'), await first.next('publish')];
      first.send({ cmd: 'disconnect', reasonCode: 0 });
      await first.closed;

      const { wire: again, connack } = await wiredDevice(port, 5, device, session);
      const resent = [await again.next('publish'), await again.next('publish')];
      again.destroy();

      expect(connack.sessionPresent).to.equal(true);
      const summary = (p: (typeof sent)[number]) => [p.payload.toString(), p.qos, p.messageId];
      expect(resent.map(summary)).to.deep.equal(sent.map(summary));
      expect(resent.map((p) => p.dup)).to.deep.equal([true, true]);
    } finally {
      first.destroy();
      await endAll(tx.client);
    }
  });

  it('subscribe failure: [MQTT-3.8.4-6] [MQTT-3.8.4-7] [MQTT-3.9.3-1] [MQTT-3.9.3-2] a filter the ACL refuses gets 0x87 Not authorized in its place, and the connection stays up', async () => {
    const device = await aDevice(stack);
    const { wire } = await wiredDevice(stack.server.mqttPort, 5, device);
    try {
      wire.send({ cmd: 'subscribe', messageId: 7, subscriptions: [{ topic: 'test/nosubscribe', qos: 2 }, { topic: '@msg/TopicA', qos: 2 }] });
      const suback = await wire.next('suback');
      expect([suback.messageId, suback.granted]).to.deep.equal([7, [0x87, 2]]);
      wire.send({ cmd: 'pingreq' });
      await wire.next('pingresp');
    } finally {
      wire.destroy();
    }
  });

  it('$ topics: [MQTT-4.7.2-1] [MQTT-3.4.2-1] no filter starting with a wildcard, nor $SYS, is granted, and a publish on a $ topic gets PUBACK 0x87: nothing reaches @msg/#', async () => {
    const device = await aDevice(stack);
    const { wire } = await wiredDevice(stack.server.mqttPort, 5, device);
    try {
      const filters = ['#', '+/+', '$SYS/#', '@msg/#'];
      wire.send({ cmd: 'subscribe', messageId: 1, subscriptions: filters.map((topic) => ({ topic, qos: 2 as const })) });
      expect((await wire.next('suback')).granted).to.deep.equal([0x87, 0x87, 0x87, 2]);

      wire.send({ cmd: 'publish', topic: '$TopicA/B', payload: Buffer.from('dollar'), qos: 1, messageId: 2, retain: false, dup: false });
      expect((await wire.next('puback')).reasonCode).to.equal(0x87);
      wire.send({ cmd: 'publish', topic: '@msg/TopicA/B', payload: Buffer.from('marker'), qos: 1, messageId: 3, retain: false, dup: false });

      await wire.next('publish');
      expect(publishesOf(wire).map((p) => [p.topic, p.payload.toString()])).to.deep.equal([['@msg/TopicA/B', 'marker']]);
    } finally {
      wire.destroy();
    }
  });

  it('unsubscribe: [MQTT-3.10.4-1] [MQTT-3.10.4-2] [MQTT-3.10.4-5] [MQTT-3.11.3-1] an unsubscribed filter gets no more messages, the others still do; UNSUBACK says 0x00, or 0x11 for an unknown filter', async () => {
    const [device, publisher] = await aGroup(stack, 2);
    const { wire } = await wiredDevice(stack.server.mqttPort, 5, device);
    const tx = await connect5(stack.mqttUrl, publisher);
    try {
      const topics = ['@msg/TopicA', '@msg/TopicA/B', '@msg/Topic/C'];
      wire.send({ cmd: 'subscribe', messageId: 1, subscriptions: topics.map((topic) => ({ topic, qos: 0 as const })) });
      await wire.next('suback');

      wire.send({ cmd: 'unsubscribe', messageId: 2, unsubscriptions: ['@msg/TopicA', '@msg/never/subscribed'] });
      const unsuback = await wire.next('unsuback');
      for (const [i, topic] of topics.entries()) await tx.client.publishAsync(topic, `topic ${i}`, { qos: 1 });

      await wire.next('publish', (p) => p.topic === '@msg/Topic/C');
      expect([unsuback.messageId, unsuback.granted]).to.deep.equal([2, [0x00, 0x11]]);
      expect(publishesOf(wire).map((p) => p.payload.toString())).to.deep.equal(['topic 1', 'topic 2']);
    } finally {
      wire.destroy();
      await endAll(tx.client);
    }
  });
});

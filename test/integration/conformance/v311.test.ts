import { expect } from 'chai';
import { aDevice, aGroup } from '../../helpers/devices';
import { connectDevice, connectRaw, endAll, sleep } from '../../helpers/mqtt';
import { closeOf, presenceBecomes, presenceOf } from '../../helpers/mqtt-expect';
import { connackOf } from '../../helpers/mqtt-raw';
import { nextPublish, publishesTo } from '../../helpers/mqtt5';
import { wireSession } from '../../helpers/mqtt-wire';
import { startStack, Stack } from '../../helpers/stack';
import { connectCollecting, connectPacketOf, cut, publishesOf, QUIET_MS, untilCount, untilSeen, wiredDevice } from '../../helpers/conformance-mqtt';

/**
 * MQTT 3.1.1 (OASIS mqtt-v3.1.1-os): every behaviour the Eclipse Paho interoperability client test checks, written
 * from the normative statements each test names, on our namespace. Paho's topics TopicA, TopicA/B, Topic/C, TopicA/C
 * are @msg/TopicA, @msg/TopicA/B, ...; its filters +/+, TopicA/+, TopicA/# are @msg/+/+, ...; its "nosubscribe"
 * filter is one outside the namespace, and its "$ topics" are topics outside it too (docs/mqtt.md).
 */
describe('MQTT 3.1.1 conformance (the Paho interoperability behaviours)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  describe('basic', () => {
    it('[MQTT-3.1.4-4] [MQTT-3.8.4-1] [MQTT-3.3.4-1] [MQTT-3.8.4-6] connects again after a DISCONNECT, and gets its own QoS 0, 1 and 2 publishes at their QoS', async () => {
      const device = await aDevice(stack);
      await (await connectDevice(stack.mqttUrl, device)).endAsync();
      const client = await connectDevice(stack.mqttUrl, device);
      try {
        const [grant] = await client.subscribeAsync('@msg/TopicA', { qos: 2 });
        expect(grant.qos).to.equal(2);
        const seen = publishesTo(client);

        // publishAsync resolves on the PUBACK (QoS 1) and the PUBCOMP (QoS 2).
        for (const qos of [0, 1, 2] as const) await client.publishAsync('@msg/TopicA', `qos ${qos}`, { qos });

        await untilCount(seen, 3);
        const got = seen.map((p) => [p.topic, p.payload.toString(), p.qos]).sort((a, b) => Number(a[2]) - Number(b[2]));
        expect(got).to.deep.equal([['@msg/TopicA', 'qos 0', 0], ['@msg/TopicA', 'qos 1', 1], ['@msg/TopicA', 'qos 2', 2]]);
      } finally {
        await endAll(client);
      }
    });

    it('[MQTT-3.1.0-2] a second CONNECT on a connection is a protocol violation: the connection is closed', async () => {
      const device = await aDevice(stack);
      const { wire } = await wiredDevice(stack.server.mqttPort, 4, device);
      try {
        wire.send(connectPacketOf(device, 4));
        await wire.closed;
        expect(wire.received.map((p) => p.cmd)).to.deep.equal(['connack']);
      } finally {
        wire.destroy();
      }
    });

    it('[MQTT-3.1.2-1] [MQTT-3.1.4-1] a CONNECT with another protocol name is not served: closed without a CONNACK', async () => {
      const device = await aDevice(stack);
      const wire = wireSession(stack.server.mqttPort, 4);
      try {
        wire.send(connectPacketOf(device, 4, { protocolId: 'hj' as 'MQTT' }));
        await wire.closed;
        expect(wire.received).to.deep.equal([]);
      } finally {
        wire.destroy();
      }
    });
  });

  describe('retained messages', () => {
    const retained = [['@msg/TopicA/B', 0], ['@msg/Topic/C', 1], ['@msg/TopicA/C', 2]] as const;

    it('[MQTT-3.3.1-5] [MQTT-3.3.1-6] [MQTT-3.3.1-8] a new subscription gets the last retained message of each matching topic, with RETAIN 1', async () => {
      const device = await aDevice(stack);
      const client = await connectDevice(stack.mqttUrl, device);
      try {
        for (const [topic, qos] of retained) await client.publishAsync(topic, `qos ${qos}`, { qos, retain: true });
        const seen = publishesTo(client);

        await client.subscribeAsync('@msg/+/+', { qos: 2 });

        await untilCount(seen, 3);
        const got = seen.map((p) => [p.topic, p.payload.toString(), p.qos, p.retain]).sort((a, b) => Number(a[2]) - Number(b[2]));
        expect(got).to.deep.equal(retained.map(([topic, qos]) => [topic, `qos ${qos}`, qos, true]));
      } finally {
        await endAll(client);
      }
    });

    it('[MQTT-3.3.1-10] [MQTT-3.3.1-11] [MQTT-3.3.1-9] an empty retained message reaches subscribers (RETAIN 0) and clears the topic for later ones', async () => {
      const [device, listener, newcomer] = await aGroup(stack, 3);
      const client = await connectDevice(stack.mqttUrl, device);
      const live = await connectDevice(stack.mqttUrl, listener);
      const later = await connectDevice(stack.mqttUrl, newcomer);
      try {
        for (const [topic, qos] of retained) await client.publishAsync(topic, `qos ${qos}`, { qos, retain: true });
        const initial = publishesTo(live);
        await live.subscribeAsync('@msg/+/+', { qos: 2 });
        await untilCount(initial, 3);
        const cleared = publishesTo(live);

        for (const [topic, qos] of retained) await client.publishAsync(topic, '', { qos, retain: true });

        await untilCount(cleared, 3);
        expect(cleared.map((p) => [p.payload.length, p.retain])).to.deep.equal([[0, false], [0, false], [0, false]]);
        const seenLater = publishesTo(later);
        await later.subscribeAsync('@msg/+/+', { qos: 2 });
        await sleep(QUIET_MS);
        expect(seenLater).to.deep.equal([]);
      } finally {
        await endAll(client, live, later);
      }
    });
  });

  describe('will', () => {
    it('[MQTT-3.1.2-8] [MQTT-3.1.2-16] the will of a connection closed without DISCONNECT is published, not retained', async () => {
      const [dying, listener] = await aGroup(stack, 2);
      const will = { topic: '@msg/Topic/C', payload: Buffer.from('client not disconnected'), qos: 1 as const, retain: false };
      const tx = await connectDevice(stack.mqttUrl, dying, { will, keepalive: 2 });
      const rx = await connectDevice(stack.mqttUrl, listener, { clean: false });
      try {
        await rx.subscribeAsync('@msg/Topic/C', { qos: 2 });
        const arrived = nextPublish(rx);

        cut(tx);

        const packet = await arrived;
        expect([packet.topic, packet.payload.toString(), packet.retain]).to.deep.equal(['@msg/Topic/C', 'client not disconnected', false]);
      } finally {
        await endAll(tx, rx);
      }
    });

    it('[MQTT-3.14.4-3] [MQTT-3.1.2-10] a DISCONNECT discards the will', async () => {
      const [leaving, listener, mate] = await aGroup(stack, 3);
      const will = { topic: '@msg/Topic/C', payload: Buffer.from('will'), qos: 1 as const, retain: false };
      const tx = await connectDevice(stack.mqttUrl, leaving, { will });
      const rx = await connectDevice(stack.mqttUrl, listener);
      const other = await connectDevice(stack.mqttUrl, mate);
      try {
        await rx.subscribeAsync('@msg/Topic/C', { qos: 2 });
        const seen = publishesTo(rx);

        await tx.endAsync();
        expect(await presenceBecomes(stack, leaving, 0)).to.equal(0);
        await other.publishAsync('@msg/Topic/C', 'after', { qos: 1 });

        await untilSeen(seen, (p) => p.payload.toString() === 'after');
        expect(seen.map((p) => p.payload.toString())).to.deep.equal(['after']);
      } finally {
        await endAll(tx, rx, other);
      }
    });
  });

  describe('zero-length ClientID', () => {
    it('[MQTT-3.1.3-8] with CleanSession 0: CONNACK 0x02, identifier rejected, and the connection is closed', async () => {
      const device = await aDevice(stack);
      const connack = await connackOf(stack.server.mqttPort, { clientId: '', token: device.token, clean: false });
      expect(connack).to.deep.equal({ sessionPresent: false, returnCode: 2 });
    });

    it('[MQTT-3.1.3-6] [MQTT-3.1.4-4] with CleanSession 1: accepted as the device its token names, which is then served', async () => {
      const [device, mate] = await aGroup(stack, 2);
      const client = await connectRaw(stack.mqttUrl, { clientId: '', username: device.token, password: '', clean: true });
      const tx = await connectDevice(stack.mqttUrl, mate);
      try {
        expect(await presenceOf(stack, device)).to.equal(1);
        await client.subscribeAsync('@msg/TopicA', { qos: 1 });
        const arrived = nextPublish(client);
        await tx.publishAsync('@msg/TopicA', 'to the assigned id', { qos: 1 });
        expect((await arrived).payload.toString()).to.equal('to the assigned id');
      } finally {
        await endAll(client, tx);
      }
    });
  });

  it('offline queueing: [MQTT-3.1.2-4] [MQTT-3.1.2-5] [MQTT-3.2.2-2] a CleanSession 0 session gets the QoS 1 and 2 messages that came while it was away', async () => {
    const [device, publisher] = await aGroup(stack, 2);
    const first = await connectDevice(stack.mqttUrl, device, { clean: false });
    await first.subscribeAsync('@msg/+/+', { qos: 2 });
    await first.endAsync();
    const tx = await connectDevice(stack.mqttUrl, publisher);
    for (const [topic, qos] of [['@msg/TopicA/B', 0], ['@msg/Topic/C', 1], ['@msg/TopicA/C', 2]] as const) await tx.publishAsync(topic, `qos ${qos}`, { qos });

    const { client: again, connack, seen } = await connectCollecting(stack.mqttUrl, { clientId: device.deviceid, username: device.token, password: '', clean: false });
    try {
      expect(connack.sessionPresent).to.equal(true);
      // The queue comes before anything published after the CONNECT (docs/mqtt.md): the marker ends it.
      await tx.publishAsync('@msg/TopicA/marker', 'marker', { qos: 1 });
      await untilSeen(seen, (p) => p.payload.toString() === 'marker');
      // QoS 0 messages may or may not be queued (§3.1.2.4); QoS 1 and 2 must be, in order.
      const queued = seen.map((p) => p.payload.toString()).filter((p) => p !== 'qos 0' && p !== 'marker');
      expect(queued).to.deep.equal(['qos 1', 'qos 2']);
    } finally {
      await endAll(again, tx);
    }
  });

  it('overlapping subscriptions: [MQTT-3.3.5-1] a message matching two subscriptions comes once at the higher QoS, or once per subscription', async () => {
    const device = await aDevice(stack);
    const client = await connectDevice(stack.mqttUrl, device);
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

  it('keepalive: [MQTT-3.1.2-24] [MQTT-3.1.2-8] a client silent for 1.5 times its Keep Alive is disconnected, and its will is published', async () => {
    const [silent, listener] = await aGroup(stack, 2);
    const rx = await connectDevice(stack.mqttUrl, listener, { keepalive: 0 });
    try {
      await rx.subscribeAsync('@msg/TopicA/keepalive', { qos: 2 });
      const arrived = nextPublish(rx, () => true, 5000);
      const { wire } = await wiredDevice(stack.server.mqttPort, 4, silent, {
        keepalive: 1,
        will: { topic: '@msg/TopicA/keepalive', payload: Buffer.from('keepalive expiry'), qos: 1, retain: false },
      });
      const connectedAt = Date.now();

      await wire.closed;
      const silentFor = Date.now() - connectedAt;

      expect(silentFor).to.be.within(1000, 3000);
      expect((await arrived).payload.toString()).to.equal('keepalive expiry');
    } finally {
      await endAll(rx);
    }
  });

  it('redelivery: [MQTT-4.4.0-1] [MQTT-3.3.1-1] [MQTT-3.2.2-2] unacknowledged QoS 1 and 2 messages are sent again on reconnection, with DUP 1 and their packet identifiers', async () => {
    const [device, publisher] = await aGroup(stack, 2);
    const port = stack.server.mqttPort;
    const first = (await wiredDevice(port, 4, device, { clean: false })).wire;
    first.send({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: '@msg/TopicA/#', qos: 2 }] });
    await first.next('suback');
    const tx = await connectDevice(stack.mqttUrl, publisher);
    try {
      await tx.publishAsync('@msg/TopicA/B', 'qos 1', { qos: 1 });
      await tx.publishAsync('@msg/TopicA/C', 'qos 2', { qos: 2 });
      // Received and never acknowledged: no PUBACK, no PUBREC.
      const sent = [await first.next('publish'), await first.next('publish')];
      first.send({ cmd: 'disconnect' });
      await first.closed;

      const { wire: again, connack } = await wiredDevice(port, 4, device, { clean: false });
      const resent = [await again.next('publish'), await again.next('publish')];
      again.destroy();

      expect(connack.sessionPresent).to.equal(true);
      const summary = (p: (typeof sent)[number]) => [p.payload.toString(), p.qos, p.messageId];
      expect(resent.map(summary)).to.deep.equal(sent.map(summary));
      expect(resent.map((p) => p.dup)).to.deep.equal([true, true]);
    } finally {
      first.destroy();
      await endAll(tx);
    }
  });

  it('subscribe failure: [MQTT-3.8.4-1] [MQTT-3.8.4-5] [MQTT-3.9.3-1] [MQTT-3.9.3-2] a filter the ACL refuses gets 0x80 in its place, and the connection stays up', async () => {
    const device = await aDevice(stack);
    const { wire } = await wiredDevice(stack.server.mqttPort, 4, device);
    try {
      wire.send({ cmd: 'subscribe', messageId: 7, subscriptions: [{ topic: 'nosubscribe', qos: 2 }, { topic: '@msg/TopicA', qos: 2 }] });
      const suback = await wire.next('suback');
      expect([suback.messageId, suback.granted]).to.deep.equal([7, [0x80, 2]]);
      wire.send({ cmd: 'pingreq' });
      await wire.next('pingresp');
    } finally {
      wire.destroy();
    }
  });

  it('$ topics: [MQTT-4.7.2-1] [MQTT-3.3.5-2] no filter starting with a wildcard, nor $SYS, is granted, and a publish on a $ topic is refused: nothing reaches @msg/#', async () => {
    const [device, publisher, mate] = await aGroup(stack, 3);
    const { wire } = await wiredDevice(stack.server.mqttPort, 4, device);
    const tx = await connectDevice(stack.mqttUrl, publisher);
    const other = await connectDevice(stack.mqttUrl, mate);
    try {
      const filters = ['#', '+/+', '$SYS/#', '@msg/#'];
      wire.send({ cmd: 'subscribe', messageId: 1, subscriptions: filters.map((topic) => ({ topic, qos: 2 as const })) });
      expect((await wire.next('suback')).granted).to.deep.equal([0x80, 0x80, 0x80, 2]);

      // MQTT 3.1.1 has no negative PUBACK: a refused publish closes the connection.
      const closed = closeOf(tx);
      tx.publish('$TopicA/B', 'dollar', { qos: 1 });
      await closed;
      await other.publishAsync('@msg/TopicA/B', 'marker', { qos: 1 });

      await wire.next('publish');
      expect(publishesOf(wire).map((p) => [p.topic, p.payload.toString()])).to.deep.equal([['@msg/TopicA/B', 'marker']]);
    } finally {
      wire.destroy();
      await endAll(tx, other);
    }
  });

  it('unsubscribe: [MQTT-3.10.4-1] [MQTT-3.10.4-2] [MQTT-3.10.4-4] [MQTT-3.10.4-5] an unsubscribed filter gets no more messages, the others still do; an unknown filter is answered too', async () => {
    const [device, publisher] = await aGroup(stack, 2);
    const rx = await connectDevice(stack.mqttUrl, device);
    const tx = await connectDevice(stack.mqttUrl, publisher);
    try {
      for (const topic of ['@msg/TopicA', '@msg/TopicA/B', '@msg/Topic/C']) await rx.subscribeAsync(topic, { qos: 2 });
      const seen = publishesTo(rx);

      await rx.unsubscribeAsync('@msg/TopicA');
      await rx.unsubscribeAsync('@msg/never/subscribed');
      await tx.publishAsync('@msg/TopicA', 'topic 0 - unsubscribed', { qos: 1 });
      await tx.publishAsync('@msg/TopicA/B', 'topic 1', { qos: 1 });
      await tx.publishAsync('@msg/Topic/C', 'topic 2', { qos: 1 });

      await untilSeen(seen, (p) => p.topic === '@msg/Topic/C');
      expect(seen.map((p) => p.payload.toString())).to.deep.equal(['topic 1', 'topic 2']);
    } finally {
      await endAll(rx, tx);
    }
  });
});

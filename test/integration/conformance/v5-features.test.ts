import { expect } from 'chai';
import { IPublishPacket } from 'mqtt';
import { aDevice, aGroup } from '../../helpers/devices';
import { endAll, sleep } from '../../helpers/mqtt';
import { connackOf5, connect5, nextPublish, publishesTo, v5 } from '../../helpers/mqtt5';
import { startStack, Stack } from '../../helpers/stack';
import { connectCollecting, publishesOf, QUIET_MS, untilCount, untilSeen, wiredDevice } from '../../helpers/conformance-mqtt';

/** MQTT 5 reason codes (mqtt-v5.0-os §2.4). */
const RC = { TOPIC_ALIAS_INVALID: 0x94, PROTOCOL_ERROR: 0x82, PACKET_TOO_LARGE: 0x95, RECEIVE_MAXIMUM_EXCEEDED: 0x93 };

/**
 * MQTT 5 (OASIS mqtt-v5.0-os): what the Eclipse Paho interoperability test for MQTT 5 adds to 3.1.1, written from the
 * normative statements each test names, on our namespace (topics as in v311.test.ts). Will delay and shared
 * subscriptions: v5-will-shared.test.ts.
 */
describe('MQTT 5 conformance: what MQTT 5 adds (Paho interoperability)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  /** Session Present of a Clean Start 0 CONNECT of `device` (the connection is ended without DISCONNECT). */
  const sessionPresent = async (device: Parameters<typeof v5>[0], sessionExpiryInterval: number) =>
    (await connackOf5(stack.mqttUrl, v5(device, { clean: false, properties: { sessionExpiryInterval } }))).sessionPresent;

  describe('session expiry', () => {
    it('[MQTT-3.1.2-23] [MQTT-3.2.2-3] a Session Expiry Interval of 0 ends the session with the connection: Clean Start 0 then finds none', async () => {
      const device = await aDevice(stack);
      const { client, connack } = await connect5(stack.mqttUrl, device, { properties: { sessionExpiryInterval: 0 } });
      expect(connack.sessionPresent).to.equal(false);
      await client.subscribeAsync('@msg/TopicA', { qos: 2 });
      await client.endAsync();

      expect(await sessionPresent(device, 0)).to.equal(false);
    });

    it('[MQTT-3.1.2-23] [MQTT-4.1.0-2] a session outlives its connection until its interval has passed', async () => {
      const device = await aDevice(stack);
      const { client } = await connect5(stack.mqttUrl, device, { properties: { sessionExpiryInterval: 1 } });
      await client.subscribeAsync('@msg/TopicA', { qos: 2 });
      await client.endAsync();

      expect(await sessionPresent(device, 1), 'at once').to.equal(true);
      await sleep(1600);
      expect(await sessionPresent(device, 1), 'after the interval').to.equal(false);
    });

    it('[MQTT-3.1.2-23] the interval a DISCONNECT sets is the one in force (§3.14.2.2.2): 5 s keeps it past the CONNECT\'s 1 s, 0 ends it at once', async () => {
      const device = await aDevice(stack);
      const port = stack.server.mqttPort;
      const first = (await wiredDevice(port, 5, device, { properties: { sessionExpiryInterval: 1 } })).wire;
      first.send({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: '@msg/TopicA', qos: 2 }] });
      await first.next('suback');
      first.send({ cmd: 'disconnect', reasonCode: 0, properties: { sessionExpiryInterval: 5 } });
      await first.closed;
      await sleep(1600);

      const { wire: second, connack } = await wiredDevice(port, 5, device, { clean: false, properties: { sessionExpiryInterval: 1 } });
      expect(connack.sessionPresent, 'past the CONNECT\'s interval').to.equal(true);
      second.send({ cmd: 'disconnect', reasonCode: 0, properties: { sessionExpiryInterval: 0 } });
      await second.closed;

      expect(await sessionPresent(device, 1), 'after a DISCONNECT with 0').to.equal(false);
    });
  });

  /** Publishes one message at each QoS on `@msg/TopicA` to the publisher's own subscription; resolves with the three copies. */
  async function ownThree(properties: IPublishPacket['properties']): Promise<IPublishPacket[]> {
    const device = await aDevice(stack);
    const { client } = await connect5(stack.mqttUrl, device);
    try {
      await client.subscribeAsync('@msg/TopicA', { qos: 2 });
      const seen = publishesTo(client);
      for (const qos of [0, 1, 2] as const) await client.publishAsync('@msg/TopicA', '', { qos, properties });
      return await untilCount(seen, 3);
    } finally {
      await endAll(client);
    }
  }

  it('user properties: [MQTT-3.3.2-17] [MQTT-3.3.2-18] reach the subscriber unaltered and in order, at every QoS', async () => {
    const copies = await ownThree({ userProperties: { c: '3', a: '2' } });
    expect(copies.map((p) => p.qos).sort()).to.deep.equal([0, 1, 2]);
    for (const p of copies) expect(Object.entries(p.properties?.userProperties ?? {})).to.deep.equal([['c', '3'], ['a', '2']]);
  });

  it('payload format: [MQTT-3.3.2-4] [MQTT-3.3.2-20] the Payload Format Indicator and the Content Type reach the subscriber unaltered, at every QoS', async () => {
    const copies = await ownThree({ payloadFormatIndicator: true, contentType: 'My name' });
    expect(copies.map((p) => p.qos).sort()).to.deep.equal([0, 1, 2]);
    for (const p of copies) expect(p.properties).to.include({ payloadFormatIndicator: true, contentType: 'My name' });
  });

  it('publication expiry: [MQTT-3.3.2-5] [MQTT-3.3.2-6] a queued message whose interval passed is dropped; the others arrive with the time they have left', async () => {
    const [device, publisher] = await aGroup(stack, 2);
    const first = await connect5(stack.mqttUrl, device, { properties: { sessionExpiryInterval: 300 } });
    await first.client.subscribeAsync('@msg/TopicA', { qos: 2 });
    await first.client.endAsync();
    const tx = await connect5(stack.mqttUrl, publisher);
    for (const [qos, interval, text] of [[1, 1, 'qos 1 - expire'], [2, 1, 'qos 2 - expire'], [1, 6, "qos 1 - don't expire"], [2, 6, "qos 2 - don't expire"]] as const) {
      await tx.client.publishAsync('@msg/TopicA', text, { qos, properties: { messageExpiryInterval: interval } });
    }
    await sleep(1500);

    const again = await connectCollecting(stack.mqttUrl, v5(device, { clean: false, properties: { sessionExpiryInterval: 300 } }));
    try {
      const { seen } = again;
      await tx.client.publishAsync('@msg/TopicA', 'marker', { qos: 1 });
      await untilSeen(seen, (p) => p.payload.toString() === 'marker');
      const queued = seen.filter((p) => p.payload.toString() !== 'marker');
      expect(queued.map((p) => p.payload.toString())).to.deep.equal(["qos 1 - don't expire", "qos 2 - don't expire"]);
      for (const p of queued) expect(p.properties?.messageExpiryInterval).to.be.within(1, 5);
    } finally {
      await endAll(again.client, tx.client);
    }
  });

  describe('subscribe options', () => {
    it('[MQTT-3.8.3-3] No Local: the publisher does not get its own message, the other subscriber does', async () => {
      const [a, b] = await aGroup(stack, 2);
      const [ca, cb] = [await connect5(stack.mqttUrl, a), await connect5(stack.mqttUrl, b)];
      try {
        for (const c of [ca, cb]) await c.client.subscribeAsync('@msg/TopicA', { qos: 2, nl: true });
        const [own, other] = [publishesTo(ca.client), publishesTo(cb.client)];
        await ca.client.publishAsync('@msg/TopicA', 'noLocal test', { qos: 1 });
        await cb.client.publishAsync('@msg/TopicA', 'marker', { qos: 1 });

        await untilSeen(own, (p) => p.payload.toString() === 'marker');
        expect(own.map((p) => p.payload.toString())).to.deep.equal(['marker']);
        expect(other.map((p) => p.payload.toString())).to.deep.equal(['noLocal test']);
      } finally {
        await endAll(ca.client, cb.client);
      }
    });

    it('[MQTT-3.3.1-12] [MQTT-3.3.1-13] Retain As Published: a live message keeps the RETAIN flag it was published with', async () => {
      const device = await aDevice(stack);
      const { client } = await connect5(stack.mqttUrl, device);
      try {
        await client.subscribeAsync('@msg/TopicA', { qos: 2, rap: true });
        const seen = publishesTo(client);
        await client.publishAsync('@msg/TopicA', 'retain as published false', { qos: 1, retain: false });
        await client.publishAsync('@msg/TopicA', 'retain as published true', { qos: 1, retain: true });
        await untilCount(seen, 2);
        expect(seen.map((p) => [p.payload.toString(), p.retain])).to.deep.equal([['retain as published false', false], ['retain as published true', true]]);
      } finally {
        await endAll(client);
      }
    });

    it('[MQTT-3.3.1-9] [MQTT-3.3.1-10] [MQTT-3.3.1-11] Retain Handling: 0 sends the retained messages on every SUBSCRIBE, 1 only for a new subscription, 2 never', async () => {
      const device = await aDevice(stack);
      const { client } = await connect5(stack.mqttUrl, device);
      /** How many retained messages a SUBSCRIBE to @msg/+/+ with Retain Handling `rh` brings. */
      const retainedFor = async (rh: 0 | 1 | 2) => {
        const seen = publishesTo(client);
        await client.subscribeAsync('@msg/+/+', { qos: 2, rh });
        await sleep(QUIET_MS);
        client.removeAllListeners('message');
        return seen.length;
      };
      try {
        for (const [topic, qos] of [['@msg/TopicA/B', 0], ['@msg/Topic/C', 1], ['@msg/TopicA/C', 2]] as const) {
          await client.publishAsync(topic, `qos ${qos}`, { qos, retain: true });
        }
        expect([await retainedFor(1), await retainedFor(1)], 'Retain Handling 1, then again').to.deep.equal([3, 0]);
        await client.unsubscribeAsync('@msg/+/+');
        expect([await retainedFor(2), await retainedFor(2)], 'Retain Handling 2').to.deep.equal([0, 0]);
        expect([await retainedFor(0), await retainedFor(0)], 'Retain Handling 0').to.deep.equal([3, 3]);
      } finally {
        await endAll(client);
      }
    });
  });

  it('subscription identifiers: [MQTT-3.3.4-3] [MQTT-3.3.4-4] a message carries the identifier of the subscription it matched, one copy the identifiers of all', async () => {
    const [a, b] = await aGroup(stack, 2);
    const [ca, cb] = [await connect5(stack.mqttUrl, a), await connect5(stack.mqttUrl, b)];
    const ids = (p: IPublishPacket) => [p.properties?.subscriptionIdentifier ?? []].flat().sort((x, y) => x - y);
    try {
      await ca.client.subscribeAsync('@msg/TopicA', { qos: 2, properties: { subscriptionIdentifier: 456789 } });
      await cb.client.subscribeAsync('@msg/TopicA', { qos: 2, properties: { subscriptionIdentifier: 2 } });
      await cb.client.subscribeAsync('@msg/TopicA/#', { qos: 2, properties: { subscriptionIdentifier: 3 } });
      await cb.client.subscribeAsync('@msg/marker', { qos: 1 });
      const [gotA, gotB] = [publishesTo(ca.client), publishesTo(cb.client)];

      await cb.client.publishAsync('@msg/TopicA', 'sub identifier test', { qos: 1 });
      await cb.client.publishAsync('@msg/marker', 'marker', { qos: 1 });

      await untilSeen(gotB, (p) => p.topic === '@msg/marker');
      expect((await untilCount(gotA, 1)).map(ids)).to.deep.equal([[456789]]);
      const copies = gotB.filter((p) => p.topic === '@msg/TopicA');
      // One copy with both identifiers, or one copy per subscription with its own [MQTT-3.3.4-5].
      expect([[[2, 3]], [[2], [3]], [[3], [2]]]).to.deep.include(copies.map(ids));
    } finally {
      await endAll(ca.client, cb.client);
    }
  });

  it('request/response: [MQTT-3.3.2-15] [MQTT-3.3.2-16] the Response Topic and Correlation Data reach the responder unaltered, and its answer reaches the requester', async () => {
    const [requester, responder] = await aGroup(stack, 2);
    const [a, b] = [await connect5(stack.mqttUrl, requester), await connect5(stack.mqttUrl, responder)];
    try {
      for (const c of [a, b]) await c.client.subscribeAsync('@msg/TopicA', { qos: 2, nl: true });
      const request = nextPublish(b.client);
      const response = nextPublish(a.client);

      await a.client.publishAsync('@msg/TopicA', 'request', { qos: 1, properties: { responseTopic: '@msg/TopicA', correlationData: Buffer.from('334') } });
      const got = await request;
      expect([got.properties?.responseTopic, got.properties?.correlationData?.toString()]).to.deep.equal(['@msg/TopicA', '334']);
      await b.client.publishAsync(got.properties!.responseTopic!, 'response', { qos: 1, properties: { correlationData: got.properties!.correlationData } });

      const answer = await response;
      expect([answer.payload.toString(), answer.properties?.correlationData?.toString()]).to.deep.equal(['response', '334']);
    } finally {
      await endAll(a.client, b.client);
    }
  });

  describe('topic aliases, client to server', () => {
    it('[MQTT-3.3.2-8] an alias of 0 gets DISCONNECT 0x94, Topic Alias invalid', async () => {
      const device = await aDevice(stack);
      const { wire } = await wiredDevice(stack.server.mqttPort, 5, device);
      try {
        wire.send({ cmd: 'publish', topic: '@msg/TopicA', payload: Buffer.from('topic alias 0'), qos: 1, messageId: 1, retain: false, dup: false, properties: { topicAlias: 0 } });
        expect((await wire.next('disconnect')).reasonCode).to.equal(RC.TOPIC_ALIAS_INVALID);
        await wire.closed;
      } finally {
        wire.destroy();
      }
    });

    it('[MQTT-3.3.2-12] [MQTT-3.3.2-7] an alias set with its topic stands for it on that connection, and on no later one', async () => {
      const device = await aDevice(stack);
      const port = stack.server.mqttPort;
      const { wire, connack } = await wiredDevice(port, 5, device);
      let next: Awaited<ReturnType<typeof wiredDevice>>['wire'] | undefined;
      try {
        expect(connack.properties?.topicAliasMaximum).to.be.at.least(1);
        wire.send({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: '@msg/TopicA', qos: 0 }] });
        await wire.next('suback');
        wire.send({ cmd: 'publish', topic: '@msg/TopicA', payload: Buffer.from('topic alias 1'), qos: 1, messageId: 2, retain: false, dup: false, properties: { topicAlias: 1 } });
        wire.send({ cmd: 'publish', topic: '', payload: Buffer.from('topic alias 2'), qos: 1, messageId: 3, retain: false, dup: false, properties: { topicAlias: 1 } });
        await wire.next('publish', (p) => p.payload.toString() === 'topic alias 2');
        expect(publishesOf(wire).map((p) => [p.topic, p.payload.toString()])).to.deep.equal([['@msg/TopicA', 'topic alias 1'], ['@msg/TopicA', 'topic alias 2']]);
        wire.send({ cmd: 'disconnect', reasonCode: 0 });
        await wire.closed;

        next = (await wiredDevice(port, 5, device)).wire;
        next.send({ cmd: 'publish', topic: '', payload: Buffer.from('topic alias 4'), qos: 1, messageId: 1, retain: false, dup: false, properties: { topicAlias: 1 } });

        // An alias without a mapping is a Protocol Error (§3.3.2.3.4); aedes answers 0x94, Topic Alias invalid.
        expect([RC.PROTOCOL_ERROR, RC.TOPIC_ALIAS_INVALID]).to.include((await next.next('disconnect')).reasonCode);
        await next.closed;
      } finally {
        wire.destroy();
        next?.destroy();
      }
    });
  });

  describe('topic aliases, server to client', () => {
    /** The PUBLISH packets as they came on the wire (aliases unresolved) for one message at each QoS. */
    async function wirePublishes(properties: { topicAliasMaximum?: number }): Promise<IPublishPacket[]> {
      const device = await aDevice(stack);
      const { client } = await connect5(stack.mqttUrl, device, { properties });
      try {
        await client.subscribeAsync('@msg/TopicA', { qos: 2 });
        const raw: IPublishPacket[] = [];
        client.on('packetreceive', (p) => p.cmd === 'publish' && raw.push({ ...p, properties: { ...p.properties } }));
        for (const qos of [0, 1, 2] as const) await client.publishAsync('@msg/TopicA', 'topic alias', { qos });
        return await untilCount(raw, 3);
      } finally {
        await endAll(client);
      }
    }

    it('[MQTT-3.1.2-26] [MQTT-3.3.2-11] the broker sets an alias within the client\'s Topic Alias Maximum, then sends the alias alone', async () => {
      const raw = await wirePublishes({ topicAliasMaximum: 1 });
      expect(raw.map((p) => [p.topic, p.properties?.topicAlias])).to.deep.equal([['@msg/TopicA', 1], ['', 1], ['', 1]]);
    });

    for (const [what, properties] of [['absent', {}], ['0', { topicAliasMaximum: 0 }]] as const) {
      it(`[MQTT-3.1.2-27] a Topic Alias Maximum ${what}: no aliases`, async () => {
        const raw = await wirePublishes(properties);
        expect(raw.map((p) => [p.topic, p.properties?.topicAlias])).to.deep.equal([0, 1, 2].map(() => ['@msg/TopicA', undefined]));
      });
    }
  });

  describe('maximum packet size', () => {
    it('[MQTT-3.2.2-15] the broker says its Maximum Packet Size in CONNACK; a packet over it gets DISCONNECT 0x95, Packet too large', async () => {
      const device = await aDevice(stack);
      const { wire, connack } = await wiredDevice(stack.server.mqttPort, 5, device);
      try {
        const limit = connack.properties?.maximumPacketSize ?? 0;
        expect(limit).to.be.above(0);
        wire.send({ cmd: 'publish', topic: '@msg/TopicA', payload: Buffer.alloc(limit), qos: 0, retain: false, dup: false });
        expect((await wire.next('disconnect')).reasonCode).to.equal(RC.PACKET_TOO_LARGE);
      } finally {
        wire.destroy();
      }
    });

    it('[MQTT-3.1.2-24] [MQTT-3.1.2-25] a message larger than the client\'s Maximum Packet Size is not sent to it, as if it had been; smaller ones are', async () => {
      const device = await aDevice(stack);
      const { client } = await connect5(stack.mqttUrl, device, { properties: { maximumPacketSize: 64 } });
      try {
        await client.subscribeAsync('@msg/TopicA', { qos: 2 });
        const seen = publishesTo(client);
        await client.publishAsync('@msg/TopicA', Buffer.alloc(32, '.'), { qos: 0 });
        await client.publishAsync('@msg/TopicA', Buffer.alloc(64, '.'), { qos: 1 });
        await client.publishAsync('@msg/TopicA', 'marker', { qos: 1 });

        await untilSeen(seen, (p) => p.payload.toString() === 'marker');
        expect(seen.map((p) => p.payload.length)).to.deep.equal([32, 6]);
        expect(client.connected).to.equal(true);
      } finally {
        await endAll(client);
      }
    });
  });

  describe('server keep alive', () => {
    for (const [asked, given] of [[0, 600], [3600, 600], [120, undefined]] as const) {
      const ids = given === undefined ? '[MQTT-3.2.2-22]' : '[MQTT-3.2.2-21]';
      it(`${ids} a client asking for ${asked} s gets ${given === undefined ? 'no Server Keep Alive: its own is in force' : `Server Keep Alive ${given} s`}`, async () => {
        const device = await aDevice(stack);
        const connack = await connackOf5(stack.mqttUrl, v5(device, { keepalive: asked }));
        expect(connack.properties?.serverKeepAlive).to.equal(given);
      });
    }
  });

  describe('flow control', () => {
    it('[MQTT-3.3.4-9] [MQTT-4.9.0-2] the broker sends no more unacknowledged QoS 1 messages than the client\'s Receive Maximum; one more once one is acknowledged', async () => {
      const [device, publisher] = await aGroup(stack, 2);
      const { wire } = await wiredDevice(stack.server.mqttPort, 5, device, { properties: { receiveMaximum: 2 } });
      const tx = await connect5(stack.mqttUrl, publisher);
      try {
        wire.send({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: '@msg/TopicA', qos: 2 }] });
        await wire.next('suback');
        for (const i of [1, 2, 3]) await tx.client.publishAsync('@msg/TopicA', `message ${i}`, { qos: 1 });

        const [first] = [await wire.next('publish'), await wire.next('publish')];
        await sleep(QUIET_MS);
        expect(publishesOf(wire).map((p) => p.payload.toString())).to.deep.equal(['message 1', 'message 2']);
        wire.send({ cmd: 'puback', messageId: first.messageId, reasonCode: 0 });

        expect((await wire.next('publish')).payload.toString()).to.equal('message 3');
      } finally {
        wire.destroy();
        await endAll(tx.client);
      }
    });

    it('[MQTT-3.3.4-7] a client with more QoS 2 publishes unacknowledged than the broker\'s Receive Maximum gets DISCONNECT 0x93', async () => {
      const device = await aDevice(stack);
      const { wire, connack } = await wiredDevice(stack.server.mqttPort, 5, device);
      try {
        const receiveMaximum = connack.properties?.receiveMaximum ?? 65535;
        // No PUBREL is sent, so every one of them stays unacknowledged (the broker waits for it to send PUBCOMP).
        wire.sendAll(Array.from({ length: receiveMaximum + 1 }, (_, i) => ({
          cmd: 'publish' as const, topic: '@msg/TopicA', payload: Buffer.from(`message ${i}`), qos: 2 as const, messageId: i + 1, retain: false, dup: false,
        })));
        expect((await wire.next('disconnect')).reasonCode).to.equal(RC.RECEIVE_MAXIMUM_EXCEEDED);
      } finally {
        wire.destroy();
      }
    });
  });
});

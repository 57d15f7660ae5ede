import { expect } from 'chai';
import { IPublishPacket, MqttClient } from 'mqtt';
import { aDevice, aGroup } from '../../helpers/devices';
import { collect, connectDevice, endAll, nextMessage, sleep } from '../../helpers/mqtt';
import { closeOf } from '../../helpers/mqtt-expect';
import { startStack, Stack } from '../../helpers/stack';

/** MESSAGE_LIMITS.maxPayloadBytes, as docs/limits-and-errors.md states it. */
const MAX_PAYLOAD_BYTES = 256 * 1024;

/** The next PUBLISH packet `client` receives, with its QoS and retain flags. */
const nextPacket = (client: MqttClient, ms = 3000) =>
  new Promise<IPublishPacket>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no message arrived in time')), ms);
    client.once('message', (_topic, _payload, packet) => {
      clearTimeout(timer);
      resolve(packet);
    });
  });

describe('MQTT delivery', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  describe('QoS 1', () => {
    it('is granted, acknowledged to the publisher and delivered at QoS 1', async () => {
      const [publisher, subscriber] = await aGroup(stack, 2);
      const [tx, rx] = [await connectDevice(stack.mqttUrl, publisher), await connectDevice(stack.mqttUrl, subscriber)];
      try {
        const [grant] = await rx.subscribeAsync('@msg/q1', { qos: 1 });
        const arrived = nextPacket(rx);
        const acks: string[] = [];
        tx.on('packetreceive', (p) => acks.push(p.cmd));

        await tx.publishAsync('@msg/q1', 'at least once', { qos: 1 });

        expect(grant.qos).to.equal(1);
        expect(acks).to.include('puback');
        const packet = await arrived;
        expect([packet.topic, packet.payload.toString(), packet.qos]).to.deep.equal(['@msg/q1', 'at least once', 1]);
      } finally {
        await endAll(tx, rx);
      }
    });
  });

  describe('QoS 2', () => {
    it('is granted and delivered exactly once at QoS 2', async () => {
      const [publisher, subscriber] = await aGroup(stack, 2);
      const [tx, rx] = [await connectDevice(stack.mqttUrl, publisher), await connectDevice(stack.mqttUrl, subscriber)];
      try {
        const [grant] = await rx.subscribeAsync('@msg/q2', { qos: 2 });
        const packets: IPublishPacket[] = [];
        rx.on('message', (_t, _p, packet) => packets.push(packet));
        const arrived = nextPacket(rx);

        await tx.publishAsync('@msg/q2', 'exactly once', { qos: 2 });
        await arrived;
        await sleep(200);

        expect(grant.qos).to.equal(2);
        expect(packets.map((p) => [p.topic, p.payload.toString(), p.qos])).to.deep.equal([['@msg/q2', 'exactly once', 2]]);
      } finally {
        await endAll(tx, rx);
      }
    });
  });

  describe('retained messages on @msg', () => {
    it('reach a later subscriber of the same group, under the topic the publisher used', async () => {
      const [publisher, subscriber] = await aGroup(stack, 2);
      const tx = await connectDevice(stack.mqttUrl, publisher);
      let rx: MqttClient | undefined;
      try {
        await tx.publishAsync('@msg/r/state', 'on', { qos: 1, retain: true });
        rx = await connectDevice(stack.mqttUrl, subscriber);
        const arrived = nextPacket(rx);

        await rx.subscribeAsync('@msg/r/#');

        const packet = await arrived;
        expect([packet.topic, packet.payload.toString(), packet.retain]).to.deep.equal(['@msg/r/state', 'on', true]);
      } finally {
        await endAll(tx, rx);
      }
    });

    it('never reach a subscriber of another group or project using the same topic', async () => {
      const [publisher, groupmate] = await aGroup(stack, 2);
      const otherGroup = await aDevice(stack, { projectid: publisher.projectid });
      const otherProject = await aDevice(stack, { groupid: publisher.groupid });
      const tx = await connectDevice(stack.mqttUrl, publisher);
      const clients = [tx];
      try {
        await tx.publishAsync('@msg/r/state', 'group A only', { qos: 1, retain: true });
        const [mate, b, p] = await Promise.all([groupmate, otherGroup, otherProject].map((d) => connectDevice(stack.mqttUrl, d)));
        clients.push(mate, b, p);
        const [seenByB, seenByP] = [collect(b), collect(p)];
        const arrived = nextMessage(mate);

        await Promise.all([mate, b, p].map((c) => c.subscribeAsync('@msg/#')));

        expect((await arrived).payload).to.equal('group A only');
        await sleep(300);
        expect(seenByB, 'other group').to.deep.equal([]);
        expect(seenByP, 'other project').to.deep.equal([]);
      } finally {
        await endAll(...clients);
      }
    });
  });

  describe('a Last Will', () => {
    it('on @msg is delivered to the group, under its own topic, when the device drops without DISCONNECT', async () => {
      const [dying, listener] = await aGroup(stack, 2);
      const stranger = await aDevice(stack, { projectid: dying.projectid });
      const will = { topic: '@msg/status/lamp', payload: Buffer.from('gone'), qos: 0 as const, retain: false };
      const tx = await connectDevice(stack.mqttUrl, dying, { will });
      const [rx, other] = [await connectDevice(stack.mqttUrl, listener), await connectDevice(stack.mqttUrl, stranger)];
      try {
        await Promise.all([rx, other].map((c) => c.subscribeAsync('@msg/#')));
        const seenByStranger = collect(other);
        const arrived = nextMessage(rx);

        tx.stream.destroy();

        expect(await arrived).to.deep.equal({ topic: '@msg/status/lamp', payload: 'gone' });
        await sleep(300);
        expect(seenByStranger).to.deep.equal([]);
      } finally {
        await endAll(tx, rx, other);
      }
    });

    // A Will passes the same checks as a PUBLISH: one that would not is refused at CONNECT (will-topic.test.ts).
    it('with a wildcard topic is refused at CONNECT, so never published', async () => {
      const [dying] = await aGroup(stack, 1);
      const will = { topic: '@msg/status/+', payload: Buffer.from('gone'), qos: 0 as const, retain: false };

      const refused = await connectDevice(stack.mqttUrl, dying, { will }).then(endAll, (err: Error & { code?: number }) => err);

      expect(refused).to.have.property('code', 5);
    });
  });

  describe('payload size', () => {
    it(`delivers a payload of exactly ${MAX_PAYLOAD_BYTES} bytes`, async () => {
      const [publisher, subscriber] = await aGroup(stack, 2);
      const [tx, rx] = [await connectDevice(stack.mqttUrl, publisher), await connectDevice(stack.mqttUrl, subscriber)];
      try {
        await rx.subscribeAsync('@msg/big');
        const arrived = nextPacket(rx);

        await tx.publishAsync('@msg/big', Buffer.alloc(MAX_PAYLOAD_BYTES, 0x61));

        expect((await arrived).payload.length).to.equal(MAX_PAYLOAD_BYTES);
        expect(tx.connected).to.equal(true);
      } finally {
        await endAll(tx, rx);
      }
    });

    it('closes the connection of a publisher that sends one byte more, and delivers nothing', async () => {
      const [publisher, subscriber] = await aGroup(stack, 2);
      const [tx, rx] = [await connectDevice(stack.mqttUrl, publisher), await connectDevice(stack.mqttUrl, subscriber)];
      try {
        await rx.subscribeAsync('@msg/big');
        const seen = collect(rx);
        const closed = closeOf(tx);

        tx.publish('@msg/big', Buffer.alloc(MAX_PAYLOAD_BYTES + 1, 0x61));

        await closed;
        await sleep(300);
        expect(seen).to.deep.equal([]);
      } finally {
        await endAll(tx, rx);
      }
    });
  });
});

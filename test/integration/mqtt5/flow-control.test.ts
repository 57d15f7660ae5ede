import { expect } from 'chai';
import { IPublishPacket, Packet } from 'mqtt';
import { aDevice, aGroup, TestDevice } from '../../helpers/devices';
import { endAll, sleep } from '../../helpers/mqtt';
import { connect5, nextPublish, publishAck, publishesTo } from '../../helpers/mqtt5';
import { wireSession } from '../../helpers/mqtt-wire';
import { startStack, Stack } from '../../helpers/stack';

const RC = { RECEIVE_MAXIMUM_EXCEEDED: 0x93, PACKET_TOO_LARGE: 0x95 };

describe('MQTT 5: flow control, packet sizes and topic aliases', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  /** An MQTT 5 session written by hand, connected as `device`. */
  async function wired(device: TestDevice) {
    const wire = wireSession(stack.server.mqttPort, 5);
    wire.send({ cmd: 'connect', protocolVersion: 5, clientId: device.deviceid, username: device.token, clean: true, keepalive: 60 });
    expect((await wire.next('connack')).reasonCode).to.equal(0);
    return wire;
  }

  describe('Receive Maximum', () => {
    /** A hand-written subscriber with Receive Maximum `max` that acknowledges nothing unless told. */
    async function slowSubscriber(device: TestDevice, max: number, filter: string) {
      const wire = wireSession(stack.server.mqttPort, 5);
      wire.send({ cmd: 'connect', protocolVersion: 5, clientId: device.deviceid, username: device.token, clean: true, keepalive: 60, properties: { receiveMaximum: max } });
      expect((await wire.next('connack')).reasonCode).to.equal(0);
      wire.send({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: filter, qos: 1 }] });
      await wire.next('suback');
      const publishes = () => wire.received.filter((p): p is IPublishPacket => p.cmd === 'publish');
      return { wire, publishes, payloads: () => publishes().map((p) => p.payload.toString()) };
    }

    it('[MQTT-3.3.4-9] the broker sends no more unacknowledged QoS 1 messages than the client\'s Receive Maximum, the rest in order once acknowledged', async () => {
      const [device, publisher] = await aGroup(stack, 2);
      const rx = await slowSubscriber(device, 2, '@msg/flow');
      const tx = await connect5(stack.mqttUrl, publisher);
      try {
        for (let i = 0; i < 5; i++) await tx.client.publishAsync('@msg/flow', `m${i}`, { qos: 1 });
        await sleep(200);
        expect(rx.payloads()).to.deep.equal(['m0', 'm1']);

        rx.wire.send({ cmd: 'puback', messageId: rx.publishes()[0].messageId });
        await sleep(100);
        expect(rx.payloads()).to.deep.equal(['m0', 'm1', 'm2']);

        for (const p of rx.publishes().slice(1)) rx.wire.send({ cmd: 'puback', messageId: p.messageId });
        await sleep(100);
        for (const p of rx.publishes().slice(3)) rx.wire.send({ cmd: 'puback', messageId: p.messageId });
        await sleep(100);
        expect(rx.payloads()).to.deep.equal(['m0', 'm1', 'm2', 'm3', 'm4']);
      } finally {
        rx.wire.destroy();
        await endAll(tx.client);
      }
    });

    it('[MQTT-3.3.4-10] QoS 0 messages are not held back by unacknowledged QoS 1 ones', async () => {
      const [device, publisher] = await aGroup(stack, 2);
      const rx = await slowSubscriber(device, 1, '@msg/mixed');
      const tx = await connect5(stack.mqttUrl, publisher);
      try {
        await tx.client.publishAsync('@msg/mixed', 'q1-a', { qos: 1 });
        await tx.client.publishAsync('@msg/mixed', 'q1-b', { qos: 1 });
        await tx.client.publishAsync('@msg/mixed', 'q0', { qos: 0 });
        await sleep(200);
        expect(rx.payloads()).to.deep.equal(['q1-a', 'q0']);
      } finally {
        rx.wire.destroy();
        await endAll(tx.client);
      }
    });

    // The broker answers a QoS 1 publish before it reads the next, so only QoS 2 exchanges waiting for PUBREL pile up.
    const qos2 = (count: number) =>
      Array.from({ length: count }, (_, i) => ({
        cmd: 'publish' as const, topic: '@msg/burst', payload: Buffer.from('x'), qos: 2 as const, messageId: i + 1, retain: false, dup: false,
      }));

    it('[MQTT-3.3.4-7] a client with more QoS 2 exchanges open than the advertised 100 gets DISCONNECT 0x93', async () => {
      const device = await aDevice(stack);
      const wire = await wired(device);
      try {
        wire.sendAll(qos2(101));
        const disconnect = await wire.next('disconnect');
        await wire.closed;
        expect(disconnect.reasonCode).to.equal(RC.RECEIVE_MAXIMUM_EXCEEDED);
      } finally {
        wire.destroy();
      }
    });

    it('100 open QoS 2 exchanges are accepted, and completing one makes room for the next', async () => {
      const device = await aDevice(stack);
      const wire = await wired(device);
      try {
        wire.sendAll(qos2(100));
        for (let id = 1; id <= 100; id++) await wire.next('pubrec', (p) => p.messageId === id);
        wire.send({ cmd: 'pubrel', messageId: 1 });
        await wire.next('pubcomp', (p) => p.messageId === 1);
        wire.send({ cmd: 'publish', topic: '@msg/burst', payload: Buffer.from('y'), qos: 2, messageId: 101, retain: false, dup: false });
        await wire.next('pubrec', (p) => p.messageId === 101);
        expect(wire.isClosed()).to.equal(false);
      } finally {
        wire.destroy();
      }
    });
  });

  describe('Maximum Packet Size', () => {
    it('[MQTT-3.2.2-15] a packet over the broker\'s 288 KiB gets DISCONNECT 0x95', async () => {
      const device = await aDevice(stack);
      const wire = await wired(device);
      try {
        wire.send({ cmd: 'publish', topic: '@msg/huge', payload: Buffer.alloc(300 * 1024), qos: 0, retain: false, dup: false });
        expect((await wire.next('disconnect')).reasonCode).to.equal(RC.PACKET_TOO_LARGE);
      } finally {
        wire.destroy();
      }
    });

    it('[MQTT-3.1.2-24] [MQTT-3.1.2-25] a message larger than the client\'s Maximum Packet Size is not sent to it, and the next one is', async () => {
      const [device, publisher] = await aGroup(stack, 2);
      const rx = await connect5(stack.mqttUrl, device, { properties: { maximumPacketSize: 512 } });
      const tx = await connect5(stack.mqttUrl, publisher);
      try {
        await rx.client.subscribeAsync('@msg/size', { qos: 1 });
        const seen = publishesTo(rx.client);
        await tx.client.publishAsync('@msg/size', Buffer.alloc(1000, 'x'), { qos: 1 });
        await tx.client.publishAsync('@msg/size', 'small', { qos: 1 });
        await sleep(200);
        expect(seen.map((p) => p.payload.toString())).to.deep.equal(['small']);
        expect(rx.client.connected).to.equal(true);
      } finally {
        await endAll(rx.client, tx.client);
      }
    });

    it('[MQTT-3.4.2-2] a Reason String that would make a PUBACK larger than the client\'s Maximum Packet Size is left out', async () => {
      const device = await aDevice(stack);
      const { client } = await connect5(stack.mqttUrl, device, { properties: { maximumPacketSize: 40 } });
      try {
        const ack = await publishAck(client, 'not/mine', 'x', { qos: 1 });
        expect(ack).to.deep.equal({ reasonCode: 0x87, reasonString: undefined });
      } finally {
        await endAll(client);
      }
    });
  });

  describe('Topic aliases', () => {
    it('[MQTT-3.3.2-12] the broker accepts the aliases a client sets, up to its Topic Alias Maximum of 64', async () => {
      const [device, publisher] = await aGroup(stack, 2);
      const rx = await connect5(stack.mqttUrl, device);
      const tx = await connect5(stack.mqttUrl, publisher, { autoAssignTopicAlias: true });
      try {
        await rx.client.subscribeAsync('@msg/aliased/+', { qos: 1 });
        const sent: Packet[] = [];
        tx.client.on('packetsend', (p) => sent.push(p));
        const seen = publishesTo(rx.client);
        for (const n of [1, 2, 1, 2]) await tx.client.publishAsync(`@msg/aliased/${n}`, `m${n}`, { qos: 1 });
        await sleep(150);
        expect(sent.filter((p) => p.cmd === 'publish' && p.topic === '')).to.have.length(2);
        expect(seen.map((p) => p.topic)).to.deep.equal(['@msg/aliased/1', '@msg/aliased/2', '@msg/aliased/1', '@msg/aliased/2']);
      } finally {
        await endAll(rx.client, tx.client);
      }
    });

    it('[MQTT-3.1.2-26] [MQTT-3.3.2-11] the broker sets aliases on what it sends, never above the client\'s Topic Alias Maximum', async () => {
      const [device, publisher] = await aGroup(stack, 2);
      const rx = await connect5(stack.mqttUrl, device, { properties: { topicAliasMaximum: 2 } });
      const tx = await connect5(stack.mqttUrl, publisher);
      try {
        await rx.client.subscribeAsync('@msg/out/+', { qos: 1 });
        const wirePackets: IPublishPacket[] = [];
        rx.client.on('packetreceive', (p) => p.cmd === 'publish' && wirePackets.push({ ...p, properties: { ...p.properties } }));
        const seen = publishesTo(rx.client);
        for (const n of [1, 2, 1, 3, 2]) await tx.client.publishAsync(`@msg/out/${n}`, `m${n}`, { qos: 1 });
        await sleep(200);
        expect(seen.map((p) => p.topic)).to.deep.equal(['@msg/out/1', '@msg/out/2', '@msg/out/1', '@msg/out/3', '@msg/out/2']);
        const aliases = wirePackets.map((p) => p.properties?.topicAlias);
        expect(aliases.every((a) => a === 1 || a === 2)).to.equal(true);
        expect(wirePackets[2].topic, 'the third message reuses the alias of the first').to.equal('');
      } finally {
        await endAll(rx.client, tx.client);
      }
    });

    it('[MQTT-3.1.2-27] a client that sets no Topic Alias Maximum gets no aliases', async () => {
      const [device, publisher] = await aGroup(stack, 2);
      const rx = await connect5(stack.mqttUrl, device);
      const tx = await connect5(stack.mqttUrl, publisher);
      try {
        await rx.client.subscribeAsync('@msg/plain', { qos: 1 });
        const aliases: unknown[] = [];
        rx.client.on('packetreceive', (p) => p.cmd === 'publish' && aliases.push(p.properties?.topicAlias));
        const arrived = nextPublish(rx.client);
        await tx.client.publishAsync('@msg/plain', 'x', { qos: 1 });
        await tx.client.publishAsync('@msg/plain', 'y', { qos: 1 });
        await arrived;
        await sleep(100);
        expect(aliases).to.deep.equal([undefined, undefined]);
      } finally {
        await endAll(rx.client, tx.client);
      }
    });
  });
});

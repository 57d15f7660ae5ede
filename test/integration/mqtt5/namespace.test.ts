import { expect } from 'chai';
import { MqttClient, Packet } from 'mqtt';
import { aDevice, aGroup } from '../../helpers/devices';
import { endAll, nextMessage, sleep } from '../../helpers/mqtt';
import { restPublish } from '../../helpers/mqtt-expect';
import { connect5, disconnectOf, publishAck } from '../../helpers/mqtt5';
import { wireSession } from '../../helpers/mqtt-wire';
import { startStack, Stack } from '../../helpers/stack';

const RC = { NOT_AUTHORIZED: 0x87, FILTER_INVALID: 0x8f, RATE_TOO_HIGH: 0x96, QUOTA: 0x97 };

/** The SUBACK reason codes and Reason String of one SUBSCRIBE (mqtt.js rejects refusals; the packet has them). */
function subackOf(client: MqttClient, filters: string[]) {
  return new Promise<{ granted: number[]; reasonString?: string }>((resolve, reject) => {
    const onPacket = (packet: Packet) => {
      if (packet.cmd !== 'suback') return;
      client.off('packetreceive', onPacket);
      resolve({ granted: packet.granted as number[], reasonString: packet.properties?.reasonString });
    };
    client.on('packetreceive', onPacket);
    client.subscribe(filters, { qos: 1 }, (err) => err && !('code' in err) && reject(err));
  });
}

describe('MQTT 5: the device namespace in reason codes', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  /** The connection still serves: a REST message reaches a fresh subscription. */
  async function expectServed(client: MqttClient, device: Parameters<typeof restPublish>[1]) {
    await client.subscribeAsync('@msg/alive');
    const arrived = nextMessage(client, (t) => t === '@msg/alive');
    await restPublish(stack, device, 'alive', 'yes');
    expect((await arrived).payload).to.equal('yes');
  }

  describe('SUBSCRIBE', () => {
    it('[MQTT-3.9.3-1] [MQTT-3.9.3-2] a filter outside the namespace gets 0x87 with the reason, the others are granted, in order', async () => {
      const device = await aDevice(stack);
      const { client } = await connect5(stack.mqttUrl, device);
      try {
        const suback = await subackOf(client, ['@msg/ok', 'foo/bar', '@private/#', '$SYS/#']);
        expect(suback.granted).to.deep.equal([1, RC.NOT_AUTHORIZED, 1, RC.NOT_AUTHORIZED]);
        expect(suback.reasonString).to.match(/devices may subscribe to @msg/);
        await expectServed(client, device);
      } finally {
        await endAll(client);
      }
    });

    it('[MQTT-4.7.1-2] [MQTT-4.7.1-3] [MQTT-3.8.4-6] filters that break the wildcard rules get 0x8F each, Topic Filter invalid', async () => {
      // mqtt.js checks filters before it sends them: written by hand.
      const device = await aDevice(stack);
      const wire = wireSession(stack.server.mqttPort, 5);
      try {
        wire.send({ cmd: 'connect', protocolVersion: 5, clientId: device.deviceid, username: device.token, clean: true, keepalive: 60 });
        expect((await wire.next('connack')).reasonCode).to.equal(0);
        const filters = ['@msg/a/#/b', '@msg/a+', '@msg/ok'].map((topic) => ({ topic, qos: 0 as const }));
        wire.send({ cmd: 'subscribe', messageId: 7, subscriptions: filters });
        const suback = await wire.next('suback');
        expect(suback.granted).to.deep.equal([RC.FILTER_INVALID, RC.FILTER_INVALID, 0]);
        expect(suback.properties?.reasonString).to.match(/wildcard must fill a whole level/);
      } finally {
        wire.destroy();
      }
    });

    it('[MQTT-3.1.2-29] a client that asked for no problem information gets the codes without a Reason String', async () => {
      const device = await aDevice(stack);
      const { client } = await connect5(stack.mqttUrl, device, { properties: { requestProblemInformation: false } });
      try {
        const suback = await subackOf(client, ['foo/bar']);
        expect(suback).to.deep.equal({ granted: [RC.NOT_AUTHORIZED], reasonString: undefined });
      } finally {
        await endAll(client);
      }
    });
  });

  describe('PUBLISH', () => {
    it('[MQTT-3.4.2-1] QoS 1 outside the namespace: PUBACK 0x87 with the reason, and the connection stays up', async () => {
      const device = await aDevice(stack);
      const { client } = await connect5(stack.mqttUrl, device);
      try {
        const ack = await publishAck(client, 'foo/bar', 'x', { qos: 1 });
        expect(ack).to.deep.equal({ reasonCode: RC.NOT_AUTHORIZED, reasonString: 'devices may publish only to @msg/...' });
        await expectServed(client, device);
      } finally {
        await endAll(client);
      }
    });

    it('[MQTT-3.5.2-1] QoS 2 outside the namespace: PUBREC 0x87 with the reason, and the connection stays up', async () => {
      const device = await aDevice(stack);
      const { client } = await connect5(stack.mqttUrl, device);
      try {
        const ack = await publishAck(client, '@private/mine', 'x', { qos: 2 });
        expect(ack).to.deep.equal({ reasonCode: RC.NOT_AUTHORIZED, reasonString: 'devices may publish only to @msg/...' });
        await expectServed(client, device);
      } finally {
        await endAll(client);
      }
    });

    it('QoS 0 outside the namespace is dropped, and the connection stays up', async () => {
      const [device, listener] = await aGroup(stack, 2);
      const { client } = await connect5(stack.mqttUrl, device);
      try {
        client.publish('@shadow/state/get', 'x');
        await sleep(100);
        expect(client.connected).to.equal(true);
        await expectServed(client, listener);
      } finally {
        await endAll(client);
      }
    });

    it('a payload over 256 KiB: PUBACK 0x87 "payload too large", and nothing is delivered', async () => {
      const [device, listener] = await aGroup(stack, 2);
      const publisher = await connect5(stack.mqttUrl, device);
      const subscriber = await connect5(stack.mqttUrl, listener);
      try {
        await subscriber.client.subscribeAsync('@msg/big');
        let got = 0;
        subscriber.client.on('message', () => got++);
        const ack = await publishAck(publisher.client, '@msg/big', Buffer.alloc(256 * 1024 + 1), { qos: 1 });
        expect(ack).to.deep.equal({ reasonCode: RC.NOT_AUTHORIZED, reasonString: 'payload too large' });
        await sleep(100);
        expect(got).to.equal(0);
      } finally {
        await endAll(publisher.client, subscriber.client);
      }
    });
  });

  describe('limits end the connection with their own reason code', () => {
    it('[MQTT-3.14.2-1] over the per-device rate limit: DISCONNECT 0x96, Message rate too high, with the reason', async () => {
      const limited = await startStack({ env: { RATE_LIMIT_RPS: '0.5', RATE_LIMIT_BURST: '3' } });
      try {
        const device = await aDevice(limited);
        const { client } = await connect5(limited.mqttUrl, device);
        const told = disconnectOf(client);
        for (let i = 0; i < 6; i++) client.publish('@msg/flood', `m${i}`, { qos: 1 });
        const disconnect = await told;
        expect(disconnect.reasonCode).to.equal(RC.RATE_TOO_HIGH);
        expect(disconnect.properties?.reasonString).to.match(/over its limit of 0\.5 publishes per second/);
        await endAll(client);
      } finally {
        await limited.stop();
      }
    });

    it('[MQTT-3.14.2-1] over the messages quota: DISCONNECT 0x97, Quota exceeded, with the reason', async () => {
      const device = await aDevice(stack);
      await stack.admin('PUT', `/v2/admin/projects/${device.projectid}/quotas`, { body: { messages: 2 } });
      const { client } = await connect5(stack.mqttUrl, device);
      try {
        const told = disconnectOf(client);
        client.publish('@msg/a', Buffer.alloc(5000), { qos: 1 });
        const disconnect = await told;
        expect(disconnect.reasonCode).to.equal(RC.QUOTA);
        expect(disconnect.properties?.reasonString).to.match(/messages.*disconnected$/);
      } finally {
        await endAll(client);
      }
    });

    it('[MQTT-3.9.3-2] a subscription once the messages quota is spent: SUBACK 0x97, and the connection stays up', async () => {
      const device = await aDevice(stack);
      await stack.admin('PUT', `/v2/admin/projects/${device.projectid}/quotas`, { body: { messages: 1 } });
      const { client } = await connect5(stack.mqttUrl, device);
      try {
        const suback = await subackOf(client, ['@msg/more']);
        expect(suback).to.deep.equal({ granted: [RC.QUOTA], reasonString: 'the messages quota of the project is spent' });
        expect(client.connected).to.equal(true);
      } finally {
        await endAll(client);
      }
    });
  });
});

import { expect } from 'chai';
import { MqttClient } from 'mqtt';
import { aGroup } from '../../helpers/devices';
import { endAll, sleep } from '../../helpers/mqtt';
import { connackOf5, connect5, nextPublish, publishesTo, v5 } from '../../helpers/mqtt5';
import { startStack, Stack } from '../../helpers/stack';

/** Cuts the network connection without DISCONNECT, as a device losing power would. */
const cut = (client: MqttClient) => client.stream.destroy();

describe('MQTT 5: sessions, message expiry and the delayed will', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  describe('Session Expiry Interval', () => {
    it('[MQTT-3.1.2-23] [MQTT-3.2.2-3] a session with an interval outlives its connection: Session Present 1 and the QoS 1 messages queued meanwhile', async () => {
      const [device, publisher] = await aGroup(stack, 2);
      const options = { clean: false, properties: { sessionExpiryInterval: 60 } };
      const first = await connect5(stack.mqttUrl, device, options);
      await first.client.subscribeAsync('@msg/queued', { qos: 1 });
      await first.client.endAsync();
      const tx = await connect5(stack.mqttUrl, publisher);
      await tx.client.publishAsync('@msg/queued', 'while away', { qos: 1 });

      const again = await connect5(stack.mqttUrl, device, options);
      try {
        const arrived = nextPublish(again.client);
        expect(again.connack.sessionPresent).to.equal(true);
        expect((await arrived).payload.toString()).to.equal('while away');
      } finally {
        await endAll(again.client, tx.client);
      }
    });

    it('[MQTT-3.1.2-6] [MQTT-3.2.2-3] once the interval has passed the session is gone: Session Present 0, nothing queued', async () => {
      const [device, publisher] = await aGroup(stack, 2);
      const options = { clean: false, properties: { sessionExpiryInterval: 1 } };
      const first = await connect5(stack.mqttUrl, device, options);
      await first.client.subscribeAsync('@msg/expiring', { qos: 1 });
      await first.client.endAsync();
      await sleep(1500);
      const tx = await connect5(stack.mqttUrl, publisher);
      await tx.client.publishAsync('@msg/expiring', 'too late', { qos: 1 });

      const again = await connect5(stack.mqttUrl, device, options);
      try {
        const seen = publishesTo(again.client);
        expect(again.connack.sessionPresent).to.equal(false);
        await sleep(200);
        expect(seen).to.deep.equal([]);
      } finally {
        await endAll(again.client, tx.client);
      }
    });

    it('[MQTT-3.1.2-4] [MQTT-3.2.2-2] Clean Start discards the session: Session Present 0', async () => {
      const [device] = await aGroup(stack, 1);
      const first = await connect5(stack.mqttUrl, device, { clean: false, properties: { sessionExpiryInterval: 60 } });
      await first.client.subscribeAsync('@msg/x', { qos: 1 });
      await first.client.endAsync();

      const connack = await connackOf5(stack.mqttUrl, v5(device, { clean: true, properties: { sessionExpiryInterval: 60 } }));

      expect(connack.sessionPresent).to.equal(false);
    });

    it('an interval above 7 days is cut to 7 days, and CONNACK says so (§3.2.2.3.2)', async () => {
      const [device] = await aGroup(stack, 1);
      const connack = await connackOf5(stack.mqttUrl, v5(device, { clean: false, properties: { sessionExpiryInterval: 0xffffffff } }));
      expect(connack.properties?.sessionExpiryInterval).to.equal(7 * 24 * 3600);
    });
  });

  describe('Message Expiry Interval', () => {
    it('[MQTT-3.3.2-5] [MQTT-3.3.2-6] a queued message that expired is dropped; one that did not arrives with the time it has left', async () => {
      const [device, publisher] = await aGroup(stack, 2);
      const options = { clean: false, properties: { sessionExpiryInterval: 60 } };
      const first = await connect5(stack.mqttUrl, device, options);
      await first.client.subscribeAsync('@msg/expiry/+', { qos: 1 });
      await first.client.endAsync();
      const tx = await connect5(stack.mqttUrl, publisher);
      await tx.client.publishAsync('@msg/expiry/short', 'gone', { qos: 1, properties: { messageExpiryInterval: 1 } });
      await tx.client.publishAsync('@msg/expiry/long', 'kept', { qos: 1, properties: { messageExpiryInterval: 60 } });
      await sleep(2100);

      const again = await connect5(stack.mqttUrl, device, options);
      try {
        const seen = publishesTo(again.client);
        await sleep(300);
        expect(seen.map((p) => p.payload.toString())).to.deep.equal(['kept']);
        expect(seen[0].properties?.messageExpiryInterval).to.be.within(1, 58);
      } finally {
        await endAll(again.client, tx.client);
      }
    });

    it('[MQTT-3.3.2-6] a live message goes on with its interval', async () => {
      const [device, publisher] = await aGroup(stack, 2);
      const rx = await connect5(stack.mqttUrl, device);
      const tx = await connect5(stack.mqttUrl, publisher);
      try {
        await rx.client.subscribeAsync('@msg/live');
        const arrived = nextPublish(rx.client);
        await tx.client.publishAsync('@msg/live', 'x', { qos: 1, properties: { messageExpiryInterval: 30 } });
        expect((await arrived).properties?.messageExpiryInterval).to.be.within(29, 30);
      } finally {
        await endAll(rx.client, tx.client);
      }
    });
  });

  describe('Will Delay Interval', () => {
    const will = (delay: number) => ({
      topic: '@msg/will',
      payload: Buffer.from('gone'),
      qos: 1 as const,
      retain: false,
      properties: { willDelayInterval: delay, userProperties: { why: 'power' } },
    });

    it('[MQTT-3.1.2-8] [MQTT-3.1.3-10] the will is published once the delay has passed, with its properties and without the delay', async () => {
      const [device, listener] = await aGroup(stack, 2);
      const rx = await connect5(stack.mqttUrl, listener);
      const dying = await connect5(stack.mqttUrl, device, { will: will(1), properties: { sessionExpiryInterval: 30 } });
      try {
        await rx.client.subscribeAsync('@msg/will', { qos: 1 });
        const seen = publishesTo(rx.client);
        const cutAt = Date.now();
        cut(dying.client);
        const packet = await nextPublish(rx.client, () => true, 4000);
        expect(Date.now() - cutAt).to.be.at.least(900);
        expect(packet.payload.toString()).to.equal('gone');
        expect(packet.properties?.userProperties).to.deep.equal({ why: 'power' });
        expect(packet.properties).to.not.have.property('willDelayInterval');
        expect(seen).to.have.length(1);
      } finally {
        await endAll(rx.client, dying.client);
      }
    });

    it('[MQTT-3.1.3-9] a new connection before the delay has passed: no will', async () => {
      const [device, listener] = await aGroup(stack, 2);
      const rx = await connect5(stack.mqttUrl, listener);
      const dying = await connect5(stack.mqttUrl, device, { will: will(2), properties: { sessionExpiryInterval: 30 } });
      let back: MqttClient | undefined;
      try {
        await rx.client.subscribeAsync('@msg/will', { qos: 1 });
        const seen = publishesTo(rx.client);
        cut(dying.client);
        await sleep(300);
        back = (await connect5(stack.mqttUrl, device, { clean: false, properties: { sessionExpiryInterval: 30 } })).client;
        await sleep(2300);
        expect(seen).to.deep.equal([]);
      } finally {
        await endAll(rx.client, dying.client, back);
      }
    });
  });
});

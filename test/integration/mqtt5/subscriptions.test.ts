import { expect } from 'chai';
import { aGroup } from '../../helpers/devices';
import { endAll, sleep } from '../../helpers/mqtt';
import { connect5, nextPublish, publishesTo } from '../../helpers/mqtt5';
import { startStack, Stack } from '../../helpers/stack';

describe('MQTT 5: subscription options and identifiers', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('[MQTT-3.3.4-3] a subscription\'s identifier comes with the messages it matches', async () => {
    const [device, publisher] = await aGroup(stack, 2);
    const rx = await connect5(stack.mqttUrl, device);
    const tx = await connect5(stack.mqttUrl, publisher);
    try {
      await rx.client.subscribeAsync('@msg/sensors/+', { qos: 1, properties: { subscriptionIdentifier: 7 } });
      await rx.client.subscribeAsync('@msg/alarms/#', { qos: 1, properties: { subscriptionIdentifier: 9 } });
      const seen = publishesTo(rx.client);
      await tx.client.publishAsync('@msg/sensors/t1', 's', { qos: 1 });
      await tx.client.publishAsync('@msg/alarms/fire', 'a', { qos: 1 });
      await sleep(200);
      expect(seen.map((p) => [p.topic, p.properties?.subscriptionIdentifier])).to.deep.equal([
        ['@msg/sensors/t1', 7],
        ['@msg/alarms/fire', 9],
      ]);
    } finally {
      await endAll(rx.client, tx.client);
    }
  });

  it('[MQTT-3.3.4-4] one copy for overlapping subscriptions carries the identifiers of all of them', async () => {
    const [device, publisher] = await aGroup(stack, 2);
    const rx = await connect5(stack.mqttUrl, device);
    const tx = await connect5(stack.mqttUrl, publisher);
    try {
      await rx.client.subscribeAsync('@msg/home/+', { qos: 1, properties: { subscriptionIdentifier: 1 } });
      await rx.client.subscribeAsync('@msg/home/#', { qos: 1, properties: { subscriptionIdentifier: 2 } });
      await rx.client.subscribeAsync('@msg/other', { qos: 1, properties: { subscriptionIdentifier: 3 } });
      const seen = publishesTo(rx.client);
      await tx.client.publishAsync('@msg/home/lamp', 'on', { qos: 1 });
      await sleep(200);
      expect(seen).to.have.length(1);
      expect([seen[0].properties?.subscriptionIdentifier].flat().sort()).to.deep.equal([1, 2]);
    } finally {
      await endAll(rx.client, tx.client);
    }
  });

  it('[MQTT-3.8.3-3] No Local: a device does not get its own publishes back, its groupmates do', async () => {
    const [device, mate] = await aGroup(stack, 2);
    const self = await connect5(stack.mqttUrl, device);
    const other = await connect5(stack.mqttUrl, mate);
    try {
      await self.client.subscribeAsync('@msg/chat', { qos: 1, nl: true });
      await other.client.subscribeAsync('@msg/chat', { qos: 1, nl: true });
      const own = publishesTo(self.client);
      const arrived = nextPublish(other.client);
      await self.client.publishAsync('@msg/chat', 'hello', { qos: 1 });
      expect((await arrived).payload.toString()).to.equal('hello');
      await sleep(150);
      expect(own).to.deep.equal([]);
    } finally {
      await endAll(self.client, other.client);
    }
  });

  it('[MQTT-3.3.1-12] [MQTT-3.3.1-13] Retain As Published keeps the RETAIN flag of live messages; without it the flag is 0', async () => {
    const [a, b, publisher] = await aGroup(stack, 3);
    const rap = await connect5(stack.mqttUrl, a);
    const plain = await connect5(stack.mqttUrl, b);
    const tx = await connect5(stack.mqttUrl, publisher);
    try {
      await rap.client.subscribeAsync('@msg/rap', { qos: 1, rap: true });
      await plain.client.subscribeAsync('@msg/rap', { qos: 1 });
      const [withRap, without] = [nextPublish(rap.client), nextPublish(plain.client)];
      await tx.client.publishAsync('@msg/rap', 'r', { qos: 1, retain: true });
      expect((await withRap).retain).to.equal(true);
      expect((await without).retain).to.equal(false);
    } finally {
      await tx.client.publishAsync('@msg/rap', '', { qos: 1, retain: true });
      await endAll(rap.client, plain.client, tx.client);
    }
  });

  describe('Retain Handling', () => {
    const retained = async (publisher: Awaited<ReturnType<typeof connect5>>, topic: string) =>
      publisher.client.publishAsync(topic, 'kept', { qos: 1, retain: true });

    it('[MQTT-3.3.1-9] 0: the retained message on every SUBSCRIBE, also a repeated one', async () => {
      const [device, publisher] = await aGroup(stack, 2);
      const tx = await connect5(stack.mqttUrl, publisher);
      await retained(tx, '@msg/rh0');
      const rx = await connect5(stack.mqttUrl, device);
      try {
        const seen = publishesTo(rx.client);
        await rx.client.subscribeAsync('@msg/rh0', { qos: 1, rh: 0 });
        await rx.client.subscribeAsync('@msg/rh0', { qos: 1, rh: 0 });
        await sleep(200);
        expect(seen.map((p) => [p.payload.toString(), p.retain])).to.deep.equal([['kept', true], ['kept', true]]);
      } finally {
        await endAll(rx.client, tx.client);
      }
    });

    it('[MQTT-3.3.1-10] 1: the retained message only when the subscription is new', async () => {
      const [device, publisher] = await aGroup(stack, 2);
      const tx = await connect5(stack.mqttUrl, publisher);
      await retained(tx, '@msg/rh1');
      const rx = await connect5(stack.mqttUrl, device);
      try {
        const seen = publishesTo(rx.client);
        await rx.client.subscribeAsync('@msg/rh1', { qos: 1, rh: 1 });
        await rx.client.subscribeAsync('@msg/rh1', { qos: 1, rh: 1 });
        await sleep(200);
        expect(seen).to.have.length(1);
      } finally {
        await endAll(rx.client, tx.client);
      }
    });

    it('[MQTT-3.3.1-11] 2: never the retained message, live messages still', async () => {
      const [device, publisher] = await aGroup(stack, 2);
      const tx = await connect5(stack.mqttUrl, publisher);
      await retained(tx, '@msg/rh2');
      const rx = await connect5(stack.mqttUrl, device);
      try {
        const seen = publishesTo(rx.client);
        await rx.client.subscribeAsync('@msg/rh2', { qos: 1, rh: 2 });
        await sleep(150);
        expect(seen).to.deep.equal([]);
        const live = nextPublish(rx.client);
        await tx.client.publishAsync('@msg/rh2', 'live', { qos: 1 });
        expect((await live).payload.toString()).to.equal('live');
      } finally {
        await endAll(rx.client, tx.client);
      }
    });
  });
});

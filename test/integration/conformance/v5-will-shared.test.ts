import { expect } from 'chai';
import { IPublishPacket, MqttClient } from 'mqtt';
import { aGroup } from '../../helpers/devices';
import { endAll, sleep } from '../../helpers/mqtt';
import { connect5, nextPublish, publishesTo } from '../../helpers/mqtt5';
import { startStack, Stack } from '../../helpers/stack';
import { cut, untilCount, untilSeen } from '../../helpers/conformance-mqtt';

/**
 * MQTT 5 (OASIS mqtt-v5.0-os): the Will Delay Interval and shared subscriptions as the Eclipse Paho interoperability
 * test for MQTT 5 exercises them, on one node, written from the normative statements each test names. Across a restart:
 * v5-restart.test.ts; across nodes: v5-cluster.test.ts.
 */
describe('MQTT 5 conformance: will delay and shared subscriptions (Paho interoperability)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  describe('will delay', () => {
    const will = (willDelayInterval: number) => ({
      topic: '@msg/TopicA',
      payload: Buffer.from('test_will_delay will message'),
      qos: 1 as const,
      retain: false,
      properties: { willDelayInterval },
    });

    /** Connects a device with a delayed will and a listener on its topic; cuts the device; returns when the will came, after the cut. */
    async function willAfterCut(willDelayInterval: number, sessionExpiryInterval: number): Promise<{ after: number; packet: IPublishPacket }> {
      const [dying, listener] = await aGroup(stack, 2);
      const rx = await connect5(stack.mqttUrl, listener);
      const tx = await connect5(stack.mqttUrl, dying, { will: will(willDelayInterval), properties: { sessionExpiryInterval } });
      try {
        await rx.client.subscribeAsync('@msg/TopicA', { qos: 2 });
        const arrived = nextPublish(rx.client, () => true, (willDelayInterval + 2) * 1000);
        const cutAt = Date.now();
        cut(tx.client);
        const packet = await arrived;
        return { after: Date.now() - cutAt, packet };
      } finally {
        await endAll(rx.client, tx.client);
      }
    }

    it('[MQTT-3.1.2-8] a will is published once its delay has passed, the session living longer (delay 1 s, session 5 s)', async () => {
      const { after, packet } = await willAfterCut(1, 5);
      expect(packet.payload.toString()).to.equal('test_will_delay will message');
      expect(after).to.be.within(900, 2500);
    });

    it('[MQTT-3.1.2-8] a will is published when the session ends, if that comes first (delay 5 s, session 0 s: at once)', async () => {
      const { after } = await willAfterCut(5, 0);
      expect(after).to.be.below(1000);
    });

    it('[MQTT-3.1.2-8] a will is published when the session ends, if that comes first (delay 5 s, session 1 s)', async () => {
      const { after } = await willAfterCut(5, 1);
      expect(after).to.be.within(900, 2500);
    });

    it('[MQTT-3.1.3-9] a new connection of the device before the delay has passed: no will', async () => {
      const [dying, listener] = await aGroup(stack, 2);
      const rx = await connect5(stack.mqttUrl, listener);
      const options = { will: will(1), properties: { sessionExpiryInterval: 30 } };
      const tx = await connect5(stack.mqttUrl, dying, options);
      let back: MqttClient | undefined;
      try {
        await rx.client.subscribeAsync('@msg/TopicA', { qos: 2 });
        const seen = publishesTo(rx.client);
        cut(tx.client);
        back = (await connect5(stack.mqttUrl, dying, { clean: false, properties: { sessionExpiryInterval: 30 } })).client;
        // No event says "no will": wait past the delay.
        await sleep(1500);
        expect(seen).to.deep.equal([]);
      } finally {
        await endAll(rx.client, tx.client, back);
      }
    });
  });

  describe('shared subscriptions', () => {
    it('[MQTT-4.8.2-1] [MQTT-4.8.2-2] members of $share/{name}/@msg/... each get their ordinary subscriptions\' messages, and each shared message goes to one of them only (§4.8.2)', async () => {
      const [a, b] = await aGroup(stack, 2);
      const members = [await connect5(stack.mqttUrl, a), await connect5(stack.mqttUrl, b)];
      try {
        for (const { client } of members) {
          const grants = await client.subscribeAsync({ '$share/sharename/@msg/x': { qos: 2 }, '@msg/TopicA': { qos: 2 } });
          expect(grants.map((g) => g.qos)).to.deep.equal([2, 2]);
        }
        const [gotA, gotB] = members.map(({ client }) => publishesTo(client));
        const publisher = members[1].client;

        await publisher.publishAsync('@msg/TopicA', 'to everyone', { qos: 0 });
        await Promise.all([untilCount(gotA, 1), untilCount(gotB, 1)]);
        const shared = ['message 0', 'message 1', 'message 2', 'message 3'];
        for (const body of shared) await publisher.publishAsync('@msg/x', body, { qos: 1 });
        // Then an ordinary message to both: each member has had its share of the shared ones when it comes.
        await publisher.publishAsync('@msg/TopicA', 'last', { qos: 1 });
        await Promise.all([gotA, gotB].map((got) => untilSeen(got, (p) => p.payload.toString() === 'last')));

        const sharedGot = [...gotA, ...gotB].filter((p) => p.topic === '@msg/x').map((p) => p.payload.toString()).sort();
        expect(sharedGot).to.deep.equal(shared);
        expect([gotA, gotB].map((got) => got.filter((p) => p.topic === '@msg/TopicA').length)).to.deep.equal([2, 2]);
      } finally {
        await endAll(...members.map((m) => m.client));
      }
    });
  });
});

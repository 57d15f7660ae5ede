import { expect } from 'chai';
import { MqttClient } from 'mqtt';
import { aDevice } from '../../helpers/devices';
import { connectDevice, endAll, nextMessage } from '../../helpers/mqtt';
import { closeOf } from '../../helpers/mqtt-expect';
import { BATCH, GET, GET_RESPONSE, shadowSession, UPDATE, UPDATED } from '../../helpers/mqtt-shadow';
import { startStack, Stack } from '../../helpers/stack';

const SUBACK_FAILURE = 0x80;

/** The SUBACK return codes of one SUBSCRIBE (mqtt.js rejects when any of them is a failure). */
const subackCodes = (client: MqttClient, filters: string[]) =>
  client.subscribeAsync(filters).then(
    (grants) => grants.map((g) => g.qos as number),
    (err: Error & { packet?: { granted?: number[] } }) => err.packet?.granted ?? Promise.reject(err),
  );

describe('MQTT shadow topics: who may publish and subscribe what', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('grants @shadow/data/updated at the QoS asked', async () => {
    const device = await aDevice(stack);
    const client = await connectDevice(stack.mqttUrl, device);
    try {
      const granted = await client.subscribeAsync({ [UPDATED]: { qos: 1 } });

      expect(granted.map((g) => g.qos)).to.deep.equal([1]);
    } finally {
      await endAll(client);
    }
  });

  it('stops @shadow/data/updated after an unsubscribe', async () => {
    const device = await aDevice(stack);
    const session = await shadowSession(stack, device);
    try {
      await session.ask(UPDATE, { data: { a: 1 } }, UPDATED);
      await session.client.unsubscribeAsync(UPDATED);
      const from = session.seen.length;

      await session.client.publishAsync(UPDATE, JSON.stringify({ data: { a: 2 } }));

      expect(await session.messagesUntilSettled(from)).to.deep.equal([]);
    } finally {
      await session.end();
    }
  });

  it('keeps @shadow/data/updated in a persistent session across a reconnect', async () => {
    const device = await aDevice(stack);
    const first = await connectDevice(stack.mqttUrl, device, { clean: false });
    await first.subscribeAsync(UPDATED, { qos: 1 });
    await first.endAsync();
    const back = await connectDevice(stack.mqttUrl, device, { clean: false });
    try {
      const arrived = nextMessage(back, (t) => t === UPDATED);

      await back.publishAsync(UPDATE, JSON.stringify({ data: { kept: true } }));

      expect(JSON.parse((await arrived).payload)).to.deep.include({ deviceid: device.deviceid, data: { kept: true } });
    } finally {
      await endAll(back);
    }
  });

  const notSubscribable = [GET, UPDATE, BATCH, '@shadow/data/+', '@shadow/data/updated/x', '@shadow/data/updated:lamp'];
  it(`refuses subscriptions to ${notSubscribable.join(', ')} with SUBACK 0x80 and keeps the connection up`, async () => {
    const device = await aDevice(stack);
    const session = await shadowSession(stack, device);
    try {
      const codes = await subackCodes(session.client, notSubscribable);

      expect(codes).to.deep.equal(notSubscribable.map(() => SUBACK_FAILURE));
      expect((await session.ask(GET, '', GET_RESPONSE)).body.deviceid).to.equal(device.deviceid);
    } finally {
      await session.end();
    }
  });

  // The three request topics are the only @shadow topics a device publishes on; like every refused publish, the rest
  // close the connection [MQTT-3.3.5-2].
  for (const topic of [UPDATED, '@shadow/data/get/x', '@shadow/data/update:lamp', '@shadow/state/get', '@shadow/batch/updated']) {
    it(`closes the connection of a device that publishes on ${topic}`, async () => {
      const device = await aDevice(stack);
      const client = await connectDevice(stack.mqttUrl, device);
      try {
        const closed = closeOf(client);

        client.publish(topic, '{"data":{}}');

        await closed;
      } finally {
        await endAll(client);
      }
    });
  }
});

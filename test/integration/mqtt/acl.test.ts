import { expect } from 'chai';
import { MqttClient } from 'mqtt';
import { aDevice, aGroup } from '../../helpers/devices';
import { collect, connectDevice, endAll, nextMessage, sleep } from '../../helpers/mqtt';
import { closeOf, restPublish } from '../../helpers/mqtt-expect';
import { rawSession } from '../../helpers/mqtt-raw';
import { startStack, Stack } from '../../helpers/stack';

/** SUBACK return code "Failure" [MQTT-3.9.3-2]. */
const SUBACK_FAILURE = 0x80;
/** The topic limits of docs/limits-and-errors.md: bytes as the device writes the topic, `@msg/` included; levels after `@msg/`. */
const MAX_TOPIC_BYTES = 512;
const MAX_LEVELS = 32;

/** Long topics are named by their size in test titles. */
const describeTopic = (topic: string) =>
  topic.length > 60 ? `a ${topic.split('/').length - 1}-level, ${Buffer.byteLength(topic)}-byte topic` : topic;

describe('MQTT topic permissions of a device', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  /** Proves the connection is still served: a message published over REST comes back on a fresh subscription. */
  async function expectStillServed(client: MqttClient, device: Parameters<typeof restPublish>[1]) {
    await client.subscribeAsync('@msg/alive');
    const arrived = nextMessage(client, (t) => t === '@msg/alive');
    await restPublish(stack, device, 'alive', 'yes');
    expect((await arrived).payload).to.equal('yes');
  }

  /** The SUBACK return codes; mqtt.js rejects a refused subscription and keeps the SUBACK on the error. */
  const subackCodes = (client: MqttClient, filter: string) =>
    client.subscribeAsync(filter).then(
      (grants) => grants.map((g) => g.qos as number),
      (err: Error & { packet?: { granted?: number[] } }) => err.packet?.granted ?? Promise.reject(err),
    );

  describe('PUBLISH', () => {
    it('to @msg/... is accepted and the connection stays up', async () => {
      const [publisher, listener] = await aGroup(stack, 2);
      const [tx, rx] = [await connectDevice(stack.mqttUrl, publisher), await connectDevice(stack.mqttUrl, listener)];
      try {
        await rx.subscribeAsync('@msg/a/b');
        const arrived = nextMessage(rx);

        await tx.publishAsync('@msg/a/b', 'hi');

        expect(await arrived).to.deep.equal({ topic: '@msg/a/b', payload: 'hi' });
        expect(tx.connected).to.equal(true);
      } finally {
        await endAll(tx, rx);
      }
    });

    it(`to a topic of ${MAX_LEVELS} levels and ${MAX_TOPIC_BYTES} bytes, @msg/ included, is accepted`, async () => {
      const [publisher, listener] = await aGroup(stack, 2);
      const [tx, rx] = [await connectDevice(stack.mqttUrl, publisher), await connectDevice(stack.mqttUrl, listener)];
      const deep = '@msg/' + Array.from({ length: MAX_LEVELS }, () => 'l').join('/');
      const long = '@msg/' + 'x'.repeat(MAX_TOPIC_BYTES - '@msg/'.length);
      try {
        await rx.subscribeAsync([deep, long]);
        const seen = collect(rx);

        const arrived = nextMessage(rx, (t) => t === long);
        await tx.publishAsync(deep, 'deep');
        await tx.publishAsync(long, 'long');
        await arrived;

        expect(seen.map((m) => m.payload)).to.deep.equal(['deep', 'long']);
      } finally {
        await endAll(tx, rx);
      }
    });

    // Refusing a PUBLISH closes the connection: MQTT 3.1.1 has no negative acknowledgement [MQTT-3.3.5-2].
    const refused = [
      'foo/bar',
      '@private/x',
      '@shadow/x',
      '$SYS/x',
      '@msgx/y',
      '@msg/a/+',
      '@msg/a/#',
      '@msg/a//b',
      '@msg/' + Array.from({ length: MAX_LEVELS + 1 }, () => 'l').join('/'),
      '@msg/' + 'x'.repeat(MAX_TOPIC_BYTES - '@msg/'.length + 1),
    ];
    for (const topic of refused) {
      it(`to ${describeTopic(topic)} makes the broker close the connection`, async () => {
        const device = await aDevice(stack);
        const client = await connectDevice(stack.mqttUrl, device);
        try {
          const closed = closeOf(client);

          client.publish(topic, 'nope');

          await closed;
        } finally {
          await endAll(client);
        }
      });
    }
  });

  describe('SUBSCRIBE', () => {
    it('grants @msg/... filters with + and #, and @private/...', async () => {
      const device = await aDevice(stack);
      const client = await connectDevice(stack.mqttUrl, device);
      try {
        const granted = await client.subscribeAsync(['@msg/x', '@msg/home/+/door', '@msg/#', '@private/#', '@private/a/b']);

        expect(granted.map((g) => g.qos)).to.deep.equal([0, 0, 0, 0, 0]);
      } finally {
        await endAll(client);
      }
    });

    const refusedFilters = [
      '#',
      'foo/#',
      '$SYS/#',
      '+/x',
      '@shadow/#',
      '@msg/' + Array.from({ length: MAX_LEVELS + 1 }, () => 'l').join('/'),
      '@msg/' + 'x'.repeat(MAX_TOPIC_BYTES - '@msg/'.length + 1),
    ];
    for (const filter of refusedFilters) {
      it(`refuses ${describeTopic(filter)} with SUBACK 0x80 and keeps the connection up`, async () => {
        const device = await aDevice(stack);
        const client = await connectDevice(stack.mqttUrl, device);
        try {
          const granted = await subackCodes(client, filter);

          expect(granted).to.deep.equal([SUBACK_FAILURE]);
          await expectStillServed(client, device);
        } finally {
          await endAll(client);
        }
      });
    }

    // mqtt.js will not send a malformed filter, so these go through a hand-written session.
    for (const filter of ['@msg/a/#/b', '@msg/a+/b']) {
      it(`refuses the invalid filter ${filter} with SUBACK 0x80 and keeps the connection up`, async () => {
        const device = await aDevice(stack);
        const session = await rawSession(stack.server.mqttPort, device);
        try {
          const codes = await session.subscribe([filter]);

          expect(codes).to.deep.equal([SUBACK_FAILURE]);
          await session.ping();
        } finally {
          session.destroy();
        }
      });
    }

    it('answers a SUBSCRIBE that mixes allowed and refused filters filter by filter', async () => {
      const device = await aDevice(stack);
      const session = await rawSession(stack.server.mqttPort, device);
      try {
        const codes = await session.subscribe(['@msg/ok', '#', '@private/ok', 'foo/bar']);

        expect(codes).to.deep.equal([0, SUBACK_FAILURE, 0, SUBACK_FAILURE]);
      } finally {
        session.destroy();
      }
    });
  });

  describe('UNSUBSCRIBE', () => {
    it('stops delivery on the filter that was unsubscribed, and only on it', async () => {
      const [publisher, listener] = await aGroup(stack, 2);
      const client = await connectDevice(stack.mqttUrl, listener);
      try {
        await client.subscribeAsync(['@msg/x', '@msg/y']);
        const seen = collect(client);

        await client.unsubscribeAsync('@msg/x');
        const arrived = nextMessage(client, (t) => t === '@msg/y');
        await restPublish(stack, publisher, 'x', 'after unsubscribe');
        await restPublish(stack, publisher, 'y', 'still subscribed');
        await arrived;
        await sleep(200);

        expect(seen).to.deep.equal([{ topic: '@msg/y', payload: 'still subscribed' }]);
      } finally {
        await endAll(client);
      }
    });

    it('stops delivery on a wildcard filter', async () => {
      const [publisher, listener] = await aGroup(stack, 2);
      const client = await connectDevice(stack.mqttUrl, listener);
      try {
        await client.subscribeAsync(['@msg/home/#', '@private/#']);
        const seen = collect(client);

        await client.unsubscribeAsync('@msg/home/#');
        const marked = nextMessage(client, (t) => t === '@private/marker');
        await restPublish(stack, publisher, 'home/lamp', 'after unsubscribe');
        const res = await stack.http('PUT', '/v2/device/private/marker', { body: 'done', headers: { authorization: listener.auth } });
        expect(res.status).to.equal(200);
        await marked;
        await sleep(200);

        expect(seen).to.deep.equal([{ topic: '@private/marker', payload: 'done' }]);
      } finally {
        await endAll(client);
      }
    });
  });
});

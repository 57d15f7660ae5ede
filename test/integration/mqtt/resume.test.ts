import { expect } from 'chai';
import mqtt, { IClientOptions, IPublishPacket, MqttClient } from 'mqtt';
import { aGroup, TestDevice } from '../../helpers/devices';
import { backboneEnvOrSkip, Cluster, startCluster } from '../../helpers/cluster';
import { endAll, sleep } from '../../helpers/mqtt';
import { dropRedisKeys, randomKeyPrefix, redisSessionEnv, sessionStoreUrlOrSkip } from '../../helpers/redis';
import { startStack, Stack } from '../../helpers/stack';

/**
 * Resuming a persistent session while messages keep coming (issue 17): the backlog first, in order, then what arrived
 * after the CONNECT, with nothing twice but an unacknowledged message resent with DUP set.
 */

type Version = 4 | 5;

/** A persistent session of `device`: 3.1.1 CleanSession 0, or MQTT 5 Clean Start 0 with `properties`. */
const persistent = (version: Version, device: TestDevice, properties?: IClientOptions['properties']): IClientOptions => ({
  clientId: device.deviceid,
  username: device.token,
  password: '',
  protocolVersion: version,
  clean: false,
  reconnectPeriod: 0,
  connectTimeout: 5000,
  ...(version === 5 && properties && { properties }),
});

function connect(url: string, options: IClientOptions): Promise<{ client: MqttClient; sessionPresent: boolean; received: IPublishPacket[] }> {
  return new Promise((resolve, reject) => {
    const client = mqtt.connect(url, options);
    const received: IPublishPacket[] = [];
    // Listening before CONNACK: a resumed session's backlog may follow it in the same segment.
    client.on('message', (_topic, _payload, packet) => received.push(packet));
    client.once('connect', (connack) => resolve({ client, sessionPresent: connack.sessionPresent, received }));
    client.once('error', (err) => {
      client.end(true);
      reject(err);
    });
  });
}

/** Publishes 1, 2, 3, ... at QoS 1 until stopped, each after the previous one's PUBACK; resolves with how many. */
function pump(publisher: MqttClient, topic: string, from: number): { stop(): Promise<number> } {
  let running = true;
  let next = from;
  const done = (async () => {
    while (running) await publisher.publishAsync(topic, String(next++), { qos: 1 });
    return next - 1;
  })();
  return {
    stop: async () => {
      running = false;
      return done;
    },
  };
}

async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await sleep(20);
}

/** Where a resume is tried: the node the subscriber leaves, the one it returns to, and the one its publisher uses. */
interface Place {
  subscriberUrl(): string;
  returnUrl(): string;
  publisherUrl(): string;
  group(count: number): Promise<TestDevice[]>;
}

function resumesInOrder(place: () => Place, version: Version) {
  const sessionProperties = version === 5 ? { sessionExpiryInterval: 300 } : undefined;

  it(`[MQTT-4.6.0-6] [MQTT-4.4.0-1] MQTT ${version === 5 ? '5' : '3.1.1'}: the backlog arrives before what is published after the CONNECT, in order, nothing twice`, async function () {
    this.timeout(30_000);
    const [device, sender] = await place().group(2);
    const topic = '@msg/resume/order';
    const first = await connect(place().subscriberUrl(), persistent(version, device, sessionProperties));
    await first.client.subscribeAsync(topic, { qos: 1 });
    await first.client.endAsync();
    const publisher = await connect(place().publisherUrl(), { clientId: sender.deviceid, username: sender.token, password: '', reconnectPeriod: 0 });
    const backlog = 150;
    for (let i = 1; i <= backlog; i++) await publisher.client.publishAsync(topic, String(i), { qos: 1 });

    const live = pump(publisher.client, topic, backlog + 1);
    await sleep(30);
    const again = await connect(place().returnUrl(), persistent(version, device, sessionProperties));
    await sleep(500);
    const last = await live.stop();
    await until(() => again.received.filter((p) => !p.dup).length >= last, 10_000);
    await endAll(again.client, publisher.client);

    expect(again.sessionPresent).to.equal(true);
    const firsts = again.received.filter((p) => !p.dup).map((p) => Number(p.payload.toString()));
    const inversions = firsts.filter((n, i) => i > 0 && n <= firsts[i - 1]);
    expect(inversions, `received ${firsts.slice(0, 12).join(',')}...`).to.deep.equal([]);
    const missing = Array.from({ length: last }, (_, i) => i + 1).filter((n) => !firsts.includes(n));
    expect(missing, 'missing').to.deep.equal([]);
    expect(firsts).to.deep.equal(Array.from({ length: last }, (_, i) => i + 1));
  });
}

describe('MQTT: resuming a persistent session under live traffic', () => {
  describe('one node, SQLite session store', () => {
    let stack: Stack;
    before(async () => {
      stack = await startStack();
    });
    after(() => stack.stop());
    const place = (): Place => ({ subscriberUrl: () => stack.mqttUrl, returnUrl: () => stack.mqttUrl, publisherUrl: () => stack.mqttUrl, group: (n) => aGroup(stack, n) });
    resumesInOrder(place, 4);
    resumesInOrder(place, 5);

    it('[MQTT-3.1.2-5] MQTT 5: Clean Start 0 without a Session Expiry resumes the stored session and delivers its queue', async () => {
      const [device, sender] = await aGroup(stack, 2);
      const topic = '@msg/resume/noexpiry';
      const first = await connect(stack.mqttUrl, persistent(5, device, { sessionExpiryInterval: 300 }));
      await first.client.subscribeAsync(topic, { qos: 1 });
      await first.client.endAsync();
      const publisher = await connect(stack.mqttUrl, { clientId: sender.deviceid, username: sender.token, password: '', reconnectPeriod: 0 });
      for (const n of ['1', '2', '3']) await publisher.client.publishAsync(topic, n, { qos: 1 });

      const again = await connect(stack.mqttUrl, persistent(5, device));
      await until(() => again.received.length >= 3, 3000);
      await endAll(again.client, publisher.client);

      expect(again.sessionPresent).to.equal(true);
      expect(again.received.map((p) => p.payload.toString())).to.deep.equal(['1', '2', '3']);
    });

    it('[MQTT-3.3.1-1] [MQTT-4.4.0-1] a message sent and not acknowledged before the connection dropped is resent with DUP set and its packet identifier', async () => {
      const [device, sender] = await aGroup(stack, 2);
      const topic = '@msg/resume/dup';
      const first = await connect(stack.mqttUrl, persistent(4, device));
      await first.client.subscribeAsync(topic, { qos: 1 });
      // The device takes the message and dies before its PUBACK leaves.
      const handed = new Promise<IPublishPacket>((resolve) => {
        first.client.handleMessage = (packet) => {
          resolve(packet as IPublishPacket);
          first.client.stream.destroy();
        };
      });
      const publisher = await connect(stack.mqttUrl, { clientId: sender.deviceid, username: sender.token, password: '', reconnectPeriod: 0 });
      await publisher.client.publishAsync(topic, 'once', { qos: 1 });
      const original = await handed;

      const again = await connect(stack.mqttUrl, persistent(4, device));
      await until(() => again.received.length >= 1, 3000);
      await endAll(again.client, publisher.client);

      expect(again.received.map((p) => [p.payload.toString(), p.dup, p.messageId])).to.deep.equal([['once', true, original.messageId]]);
    });
  });

  describe('one node, Redis session store', () => {
    let stack: Stack;
    let url: string;
    let prefix: string;
    before(async function () {
      url = sessionStoreUrlOrSkip(this);
      prefix = randomKeyPrefix();
      stack = await startStack({ env: redisSessionEnv(url, prefix) });
    });
    after(async () => {
      await stack?.stop();
      if (url) await dropRedisKeys(url, prefix);
    });
    const place = (): Place => ({ subscriberUrl: () => stack.mqttUrl, returnUrl: () => stack.mqttUrl, publisherUrl: () => stack.mqttUrl, group: (n) => aGroup(stack, n) });
    resumesInOrder(place, 4);
    resumesInOrder(place, 5);
  });

  describe('three nodes over the backbone, sessions in one Redis: the device leaves one node, returns to another, the publisher on the third', () => {
    let cluster: Cluster;
    let url: string;
    let prefix: string;
    before(async function () {
      this.timeout(60_000);
      const backbone = backboneEnvOrSkip(this);
      url = sessionStoreUrlOrSkip(this);
      prefix = randomKeyPrefix();
      cluster = await startCluster(3, { ...backbone, ...redisSessionEnv(url, prefix) });
    });
    after(async () => {
      await cluster?.stop();
      if (url) await dropRedisKeys(url, prefix);
    });
    const place = (): Place => ({
      subscriberUrl: () => cluster.nodes[0].mqttUrl,
      returnUrl: () => cluster.nodes[1].mqttUrl,
      publisherUrl: () => cluster.nodes[2].mqttUrl,
      group: (n) => aGroup(cluster.nodes[0], n),
    });
    resumesInOrder(place, 4);
    resumesInOrder(place, 5);
  });
});

import { expect } from 'chai';
import mqtt, { IConnackPacket, MqttClient } from 'mqtt';
import { backboneEnvOrSkip, Cluster, startCluster } from '../../helpers/cluster';
import { aGroup, TestDevice } from '../../helpers/devices';
import { collect, connectDevice, endAll, nextMessage, sleep } from '../../helpers/mqtt';
import { scrape, valueOf } from '../../helpers/prometheus';
import { dropRedisKeys, randomKeyPrefix, redisSessionEnv, sessionStoreUrlOrSkip } from '../../helpers/redis';
import { Stack } from '../../helpers/stack';

/** How long a test waits to be sure that something does not arrive. */
const QUIET_MS = 500;

async function leaveSubscribed(node: Stack, device: TestDevice, filter: string): Promise<void> {
  const client = await connectDevice(node.mqttUrl, device, { clean: false });
  await client.subscribeAsync(filter, { qos: 1 });
  await client.endAsync();
}

/** Reconnects a persistent session to `node`, collecting what it gets from the first byte, for `ms`. */
async function comeBack(node: Stack, device: TestDevice, ms = 800) {
  const client = mqtt.connect(node.mqttUrl, { clientId: device.deviceid, username: device.token, clean: false, reconnectPeriod: 0, manualConnect: true });
  const received: string[] = [];
  client.on('message', (_topic, payload) => received.push(payload.toString()));
  const connack = await new Promise<IConnackPacket>((resolve, reject) => {
    client.once('connect', resolve);
    client.once('error', reject);
    client.connect();
  });
  await sleep(ms);
  await client.endAsync();
  return { connack, received };
}

describe('MQTT backbone with a shared session store (real Mosquitto and Redis)', () => {
  let cluster: Cluster | undefined;
  let a: Stack;
  let b: Stack;
  let url: string;
  const prefix = randomKeyPrefix();
  before(async function () {
    const backbone = backboneEnvOrSkip(this);
    url = sessionStoreUrlOrSkip(this);
    cluster = await startCluster(2, { ...backbone, ...redisSessionEnv(url, prefix) });
    [a, b] = cluster.nodes;
  });
  after(async () => {
    await cluster?.stop();
    if (url) await dropRedisKeys(url, prefix);
  });

  it('queues a message for an offline persistent session once, whichever node accepted it, and hands it over on any node', async () => {
    const [away, sender] = await aGroup(a, 2);
    await leaveSubscribed(a, away, '@msg/news');
    const queuedBefore = valueOf(await scrape(a), 'openpie_mqtt_queued_messages');
    const tx = await connectDevice(b.mqttUrl, sender);
    try {
      for (let i = 1; i <= 5; i++) await tx.publishAsync('@msg/news', `mqtt ${i}`, { qos: 1 });
    } finally {
      await endAll(tx);
    }
    for (let i = 1; i <= 5; i++) {
      const res = await a.http('PUT', '/v2/device/message/news', { body: `rest ${i}`, headers: { authorization: sender.auth } });
      expect(res.status, res.text).to.equal(200);
    }
    const queued = valueOf(await scrape(b), 'openpie_mqtt_queued_messages') - queuedBefore;

    const back = await comeBack(b, away);

    expect(queued, 'queued once, not once per node').to.equal(10);
    expect(back.connack.sessionPresent).to.equal(true);
    expect(back.received).to.deep.equal([1, 2, 3, 4, 5].map((i) => `mqtt ${i}`).concat([1, 2, 3, 4, 5].map((i) => `rest ${i}`)));
  });

  it('delivers to a persistent session online on another node once, and its acknowledgements leave nothing queued', async () => {
    const [online, sender] = await aGroup(a, 2);
    const rx = await connectDevice(a.mqttUrl, online, { clean: false });
    const tx = await connectDevice(b.mqttUrl, sender);
    try {
      await rx.subscribeAsync('@msg/live', { qos: 1 });
      const seen = collect(rx);
      for (let i = 1; i <= 5; i++) await tx.publishAsync('@msg/live', `live ${i}`, { qos: 1 });
      for (const deadline = Date.now() + 3000; seen.length < 5 && Date.now() < deadline; ) await sleep(25);
      await sleep(QUIET_MS);
      await endAll(tx);
      await rx.endAsync();

      const back = await comeBack(b, online, QUIET_MS);

      expect(seen.map((m) => m.payload)).to.deep.equal([1, 2, 3, 4, 5].map((i) => `live ${i}`));
      expect(back.received, 'nothing left to send again').to.deep.equal([]);
    } finally {
      await endAll(rx, tx);
    }
  });

  it('never publishes the will of a device connected to another node, even from a node that starts later', async () => {
    const [watcher, mortal] = await aGroup(a, 2);
    const rx = await connectDevice(a.mqttUrl, watcher);
    let doomed: MqttClient | undefined;
    try {
      await rx.subscribeAsync('@msg/will');
      const seen = collect(rx);
      doomed = await connectDevice(b.mqttUrl, mortal, { will: { topic: '@msg/will', payload: Buffer.from('gone'), qos: 1, retain: false } });

      await cluster!.addNode();
      await sleep(QUIET_MS);
      const beforeItDies = seen.map((m) => m.payload);
      const will = nextMessage(rx, (topic) => topic === '@msg/will', 5000);
      doomed.stream.destroy();

      expect(beforeItDies).to.deep.equal([]);
      expect((await will).payload).to.equal('gone');
    } finally {
      await endAll(rx, doomed);
    }
  });
});

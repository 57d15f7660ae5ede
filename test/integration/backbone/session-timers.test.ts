import { expect } from 'chai';
import { IPublishPacket, MqttClient } from 'mqtt';
import { backboneEnvOrSkip, Cluster, startCluster } from '../../helpers/cluster';
import { aGroup, TestDevice } from '../../helpers/devices';
import { endAll, sleep } from '../../helpers/mqtt';
import { connect5, publishesTo } from '../../helpers/mqtt5';
import { dropRedisKeys, randomKeyPrefix, redisSessionEnv, sessionStoreUrlOrSkip } from '../../helpers/redis';
import { Stack } from '../../helpers/stack';

const DELAY_S = 2;
const will = { topic: '@msg/will', payload: Buffer.from('gone'), qos: 1 as const, retain: false, properties: { willDelayInterval: DELAY_S } };
const persistent = (sessionExpiryInterval: number) => ({ clean: false, properties: { sessionExpiryInterval } });

/** Resolves with the moment the client's connection closed (a node that stops sends DISCONNECT 0x8B first). */
const closed = (client: MqttClient) => new Promise<number>((resolve) => client.once('close', () => resolve(Date.now())));

/** Listeners subscribed to `@msg/will` on each node given, each collecting what it gets. */
async function listenersOn(nodes: Stack[], devices: TestDevice[]) {
  const clients = await Promise.all(nodes.map(async (node, i) => (await connect5(node.mqttUrl, devices[i])).client));
  for (const client of clients) await client.subscribeAsync('@msg/will', { qos: 1 });
  const seen = clients.map((client) => publishesTo(client));
  return { clients, seen, arrivals: clients.map((client) => firstArrival(client)) };
}

function firstArrival(client: MqttClient): Promise<number> {
  return new Promise((resolve) => client.once('message', () => resolve(Date.now())));
}

const payloads = (seen: IPublishPacket[]) => seen.map((packet) => packet.payload.toString());

/**
 * The MQTT 5 timers of a cluster sharing its sessions in Redis (docs/mqtt.md "MQTT 5 timers"): whichever node sets a
 * session's deadline or a will's due time, every live node sweeps the store and one fires it, once, also after the
 * node that set it is gone.
 */
describe('MQTT 5 timers in a cluster sharing the Redis session store (real Mosquitto and Redis)', function () {
  this.timeout(30_000);
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

  it('[MQTT-3.1.2-8] [MQTT-3.1.3-9] the delayed will of a device whose node stopped is published by the nodes left, once, after the delay and not before', async () => {
    const leaving = await cluster!.addNode();
    const [device, ...listening] = await aGroup(a, 3);
    const rx = await listenersOn([a, b], listening);
    const dying = await connect5(leaving.mqttUrl, device, { will, properties: { sessionExpiryInterval: 30 } });
    dying.client.on('error', () => undefined);
    const cutAt = closed(dying.client);

    try {
      await leaving.stop();
      const [onA, onB] = await Promise.all(rx.arrivals.map((arrival) => Promise.race([arrival, sleep(6000).then(() => 0)])));
      await sleep(1000);

      expect(payloads(rx.seen[0]), 'on A').to.deep.equal(['gone']);
      expect(payloads(rx.seen[1]), 'on B').to.deep.equal(['gone']);
      expect(Math.min(onA, onB) - (await cutAt)).to.be.within(DELAY_S * 1000 - 100, DELAY_S * 1000 + 2000);
    } finally {
      await endAll(dying.client, ...rx.clients);
    }
  });

  it('[MQTT-3.1.2-8] a delayed will both nodes sweep for is published once', async () => {
    const [device, ...listening] = await aGroup(a, 3);
    const rx = await listenersOn([a, b], listening);
    const dying = await connect5(a.mqttUrl, device, { will, properties: { sessionExpiryInterval: 30 } });
    const cutAt = Date.now();

    try {
      // The device loses power: no DISCONNECT.
      dying.client.stream.destroy();
      await Promise.all(rx.arrivals.map((arrival) => Promise.race([arrival, sleep(6000)])));
      await sleep(1500);

      expect(payloads(rx.seen[0]), 'on A').to.deep.equal(['gone']);
      expect(payloads(rx.seen[1]), 'on B').to.deep.equal(['gone']);
      expect((await rx.arrivals[1]) - cutAt).to.be.at.least(DELAY_S * 1000 - 100);
    } finally {
      await endAll(dying.client, ...rx.clients);
    }
  });

  it('[MQTT-3.1.3-9] [MQTT-3.2.2-3] a device back on another node before the delay: its session is there and no will goes out', async () => {
    const leaving = await cluster!.addNode();
    const [device, listener] = await aGroup(a, 2);
    const rx = await listenersOn([b], [listener]);
    const dying = await connect5(leaving.mqttUrl, device, { will, ...persistent(30) });
    dying.client.on('error', () => undefined);
    await dying.client.subscribeAsync('@msg/kept', { qos: 1 });
    await leaving.stop();

    const back = await connect5(b.mqttUrl, device, persistent(30));
    try {
      await sleep(DELAY_S * 1000 + 1500);

      expect(back.connack.sessionPresent).to.equal(true);
      expect(rx.seen[0]).to.deep.equal([]);
    } finally {
      await endAll(back.client, dying.client, ...rx.clients);
    }
  });

  it('[MQTT-3.1.2-23] [MQTT-3.2.2-3] a session whose node stopped ends at its deadline, on whichever node it returns to', async () => {
    const leaving = await cluster!.addNode();
    const [device] = await aGroup(a, 1);
    const first = await connect5(leaving.mqttUrl, device, persistent(2));
    first.client.on('error', () => undefined);
    await first.client.subscribeAsync('@msg/kept', { qos: 1 });
    const cutAt = closed(first.client);
    await leaving.stop();

    await sleep((await cutAt) + 2000 + 1200 - Date.now());
    const again = await connect5(b.mqttUrl, device, persistent(30));

    try {
      expect(again.connack.sessionPresent).to.equal(false);
    } finally {
      await endAll(again.client, first.client);
    }
  });
});

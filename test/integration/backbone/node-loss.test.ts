import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt, { IConnackPacket, IPublishPacket } from 'mqtt';
import { cassandraOrSkip, cassandraStoreEnv, CassandraTestSettings, dropKeyspace, randomKeyspace } from '../../helpers/cassandra';
import { backboneEnvOrSkip } from '../../helpers/cluster';
import { aGroup } from '../../helpers/devices';
import { httpClient, HttpClient } from '../../helpers/http';
import { listeningPorts, MainProcess, startMainProcess } from '../../helpers/main-process';
import { connectDevice, endAll, sleep } from '../../helpers/mqtt';
import { connect5 } from '../../helpers/mqtt5';
import { NODE_GONE_AFTER_MS } from '../../../src/mqtt/session-upkeep';
import { dropRedisKeys, randomKeyPrefix, redisSessionEnv, sessionStoreUrlOrSkip } from '../../helpers/redis';

const ADMIN_TOKEN = 'node-loss-admin-token-0123456789';

interface Node {
  run: MainProcess;
  http: HttpClient;
  admin: HttpClient;
  mqttUrl: string;
}

async function readyWithin(node: Node, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while ((await node.http('GET', '/readyz')).status !== 200) {
    if (Date.now() > deadline) throw new Error(`node not ready after ${ms} ms:\n${node.run.output()}`);
    await sleep(100);
  }
}

/**
 * The production case: two `npm start` processes on real Cassandra (one registry), Mosquitto (the backbone) and
 * Redis (one session store), each its own process so that one can be killed with SIGKILL.
 */
describe('a node killed with kill -9 (two processes on Cassandra, Mosquitto and Redis)', function () {
  this.timeout(120_000);
  const run = Math.random().toString(16).slice(2, 8);
  const keyspace = randomKeyspace();
  const prefix = randomKeyPrefix();
  const dirs: string[] = [];
  const nodes: Node[] = [];
  let cassandra: CassandraTestSettings | undefined;
  let url: string | undefined;
  let env: Record<string, string>;

  async function startNode(name: string, dataDir = mkdtempSync(join(tmpdir(), `openpie-${name}-`))): Promise<Node> {
    dirs.push(dataDir);
    const proc = startMainProcess({ ...env, NODE_ID: `${name}-${run}`, DATA_DIR: dataDir, PORT: '0', MQTT_PORT: '0', COAP_PORT: '0', ADMIN_TOKEN });
    const { httpPort, mqttPort } = await listeningPorts(proc, 60_000);
    const base = `http://127.0.0.1:${httpPort}`;
    const node = { run: proc, http: httpClient(base), admin: httpClient(base, { authorization: `Bearer ${ADMIN_TOKEN}` }), mqttUrl: `mqtt://127.0.0.1:${mqttPort}` };
    nodes.push(node);
    await readyWithin(node, 20_000);
    return node;
  }

  before(async function () {
    const backbone = backboneEnvOrSkip(this);
    cassandra = cassandraOrSkip(this);
    url = sessionStoreUrlOrSkip(this);
    env = { ...backbone, ...cassandraStoreEnv(cassandra, keyspace), ...redisSessionEnv(url, prefix) };
  });
  after(async () => {
    for (const { run: proc } of nodes) {
      if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
      await proc.exited;
    }
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    if (cassandra) await dropKeyspace(cassandra, keyspace);
    if (url) await dropRedisKeys(url, prefix);
  });

  it('lets a device whose messages were queued on it resume on the other node, and publishes the wills it owed when it is back', async () => {
    // The first node creates the keyspace; the second starts once it is there.
    const doomed = await startNode('a');
    const survivor = await startNode('b');
    const [subscriber, publisher, mortal] = await aGroup(doomed, 3);
    const away = await connectDevice(doomed.mqttUrl, subscriber, { clean: false });
    await away.subscribeAsync({ '@msg/q1': { qos: 1 }, '@msg/q2': { qos: 2 }, '@msg/will': { qos: 1 } });
    await away.endAsync();
    const tx = await connectDevice(doomed.mqttUrl, publisher);
    for (let i = 1; i <= 5; i++) await tx.publishAsync('@msg/q1', `a${i}`, { qos: 1 });
    for (let i = 1; i <= 5; i++) await tx.publishAsync('@msg/q2', `b${i}`, { qos: 2 });
    await endAll(tx);
    for (const body of ['r1', 'r2']) {
      const res = await survivor.http('PUT', '/v2/device/message/q1', { body, headers: { authorization: publisher.auth } });
      expect(res.status, res.text).to.equal(200);
    }

    // Connected to the node when it dies: its will is owed, and only that node's next run may know it is orphaned.
    const cut = await connectDevice(doomed.mqttUrl, mortal, { will: { topic: '@msg/will', payload: Buffer.from('gone'), qos: 1, retain: false } });
    cut.on('error', () => undefined);

    doomed.run.child.kill('SIGKILL');
    await doomed.run.exited;
    await endAll(cut);
    const back = mqtt.connect(survivor.mqttUrl, { clientId: subscriber.deviceid, username: subscriber.token, clean: false, reconnectPeriod: 0, manualConnect: true });
    const received: { topic: string; payload: string }[] = [];
    back.on('message', (topic, payload) => received.push({ topic, payload: payload.toString() }));
    try {
      const connack = await new Promise<IConnackPacket>((resolve, reject) => {
        back.once('connect', resolve);
        back.once('error', reject);
        back.connect();
      });
      for (const deadline = Date.now() + 10_000; received.length < 12 && Date.now() < deadline; ) await sleep(25);
      await sleep(300);

      const on = (topic: string) => received.filter((m) => m.topic === topic).map((m) => m.payload);
      expect(connack.sessionPresent, 'session present').to.equal(true);
      expect(on('@msg/q1')).to.deep.equal(['a1', 'a2', 'a3', 'a4', 'a5', 'r1', 'r2']);
      expect(on('@msg/q2')).to.deep.equal(['b1', 'b2', 'b3', 'b4', 'b5']);
      expect(on('@msg/will'), 'no other node publishes the will').to.deep.equal([]);

      await startNode('a', dirs[0]);
      for (const deadline = Date.now() + 15_000; on('@msg/will').length === 0 && Date.now() < deadline; ) await sleep(50);
      await sleep(300);

      expect(on('@msg/will'), 'published once by the same node\'s next run').to.deep.equal(['gone']);
    } finally {
      await endAll(back);
    }
  });

  it('[MQTT-3.1.3-9] [MQTT-3.1.2-23] the MQTT 5 will delay and session expiry of a node killed for good are fired once by a node left, after the node stays gone', async function () {
    this.timeout(60_000);
    const survivor = nodes.find(({ run: { child } }) => child.exitCode === null && child.signalCode === null) ?? (await startNode('b'));
    const doomed = await startNode('c');
    const [mortal, watcher] = await aGroup(survivor, 2);
    const seen = await connect5(survivor.mqttUrl, watcher);
    const wills: IPublishPacket[] = [];
    seen.client.on('message', (_topic, _payload, packet) => wills.push(packet));
    await seen.client.subscribeAsync('@msg/lastwords', { qos: 1 });
    const cut = await connect5(doomed.mqttUrl, mortal, {
      clean: false,
      properties: { sessionExpiryInterval: 4 },
      will: { topic: '@msg/lastwords', payload: Buffer.from('gone for good'), qos: 1, retain: false, properties: { willDelayInterval: 2 } },
    });
    await cut.client.subscribeAsync('@msg/kept', { qos: 1 });
    cut.client.on('error', () => undefined);

    doomed.run.child.kill('SIGKILL');
    await doomed.run.exited;
    const killedAt = Date.now();
    await endAll(cut.client);
    for (const deadline = killedAt + NODE_GONE_AFTER_MS + 10_000; wills.length === 0 && Date.now() < deadline; ) await sleep(50);
    const arrivedAfter = Date.now() - killedAt;
    await sleep(1000);

    try {
      expect(wills.map((p) => p.payload.toString()), 'the will, once').to.deep.equal(['gone for good']);
      expect(arrivedAfter, 'not before the node stayed gone and the will delay passed').to.be.at.least(NODE_GONE_AFTER_MS + 1500);
      // The session's 4 s count from the take-over too; after them it is gone on every node.
      await sleep(Math.max(0, killedAt + NODE_GONE_AFTER_MS + 5000 - Date.now()));
      const back = await connect5(survivor.mqttUrl, mortal, { clean: false, properties: { sessionExpiryInterval: 4 } });
      await endAll(back.client);
      expect(back.connack.sessionPresent, 'session present after its expiry').to.equal(false);
    } finally {
      await endAll(seen.client);
    }
  });
});

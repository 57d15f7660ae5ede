import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt, { IConnackPacket, MqttClient } from 'mqtt';
import { aGroup, TestDevice } from '../../helpers/devices';
import { httpClient, HttpClient } from '../../helpers/http';
import { listeningPorts, MainProcess, startMainProcess } from '../../helpers/main-process';
import { connectDevice, endAll, sleep } from '../../helpers/mqtt';

const ADMIN_TOKEN = 'restart-admin-token-0123456789';

interface Node {
  run: MainProcess;
  admin: HttpClient;
  http: HttpClient;
  mqttUrl: string;
}

/** `npm start` on `dataDir` (embedded mode: SQLite for everything), on free ports. */
async function startNode(dataDir: string): Promise<Node> {
  const run = startMainProcess({ DATA_DIR: dataDir, PORT: '0', MQTT_PORT: '0', COAP_PORT: '0', ADMIN_TOKEN });
  const { httpPort, mqttPort } = await listeningPorts(run);
  const baseUrl = `http://127.0.0.1:${httpPort}`;
  return { run, http: httpClient(baseUrl), admin: httpClient(baseUrl, { authorization: `Bearer ${ADMIN_TOKEN}` }), mqttUrl: `mqtt://127.0.0.1:${mqttPort}` };
}

/** Connects `device` with its persistent session, listening from the first byte: queued messages follow CONNACK at once. */
function resume(url: string, device: TestDevice) {
  const client = mqtt.connect(url, { clientId: device.deviceid, username: device.token, clean: false, reconnectPeriod: 0, manualConnect: true });
  const received: { topic: string; payload: string; retain: boolean }[] = [];
  client.on('message', (topic, payload, packet) => received.push({ topic, payload: payload.toString(), retain: packet.retain }));
  const connack = new Promise<IConnackPacket>((resolve, reject) => {
    client.once('connect', resolve);
    client.once('error', reject);
  });
  client.connect();
  return { client, received, connack };
}

async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await sleep(25);
}

describe('persistent sessions across a restart of the process (embedded mode, SQLite in DATA_DIR)', function () {
  this.timeout(90_000);
  let dataDir: string;
  let nodes: Node[] = [];
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'openpie-restart-'));
    nodes = [];
  });
  afterEach(async () => {
    for (const { run } of nodes) {
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
      await run.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    it(`after ${signal}, delivers every queued QoS 1 and QoS 2 message once and in order, the retained message and the will`, async () => {
      const first = await startNode(dataDir);
      nodes.push(first);
      const [subscriber, publisher, mortal] = await aGroup(first, 3);
      const away = await connectDevice(first.mqttUrl, subscriber, { clean: false });
      await away.subscribeAsync({ '@msg/q1': { qos: 1 }, '@msg/q2': { qos: 2 }, '@msg/will': { qos: 1 } });
      await away.endAsync();
      const tx = await connectDevice(first.mqttUrl, publisher);
      for (let i = 1; i <= 5; i++) await tx.publishAsync('@msg/q1', `a${i}`, { qos: 1 });
      for (let i = 1; i <= 5; i++) await tx.publishAsync('@msg/q2', `b${i}`, { qos: 2 });
      // REST publishes are QoS 1 unless ?qos=0 says otherwise: queued too.
      for (const payload of ['r1', 'r2']) {
        const res = await first.http('PUT', '/v2/device/message/q1', { body: payload, headers: { authorization: publisher.auth } });
        expect(res.status, res.text).to.equal(200);
      }
      await tx.publishAsync('@msg/retained', 'kept', { qos: 1, retain: true });
      await endAll(tx);
      // Connected when the process goes, never disconnected: its will is owed [MQTT-3.1.2-8].
      const doomed: MqttClient = await connectDevice(first.mqttUrl, mortal, { will: { topic: '@msg/will', payload: Buffer.from('gone'), qos: 1, retain: false } });
      doomed.on('error', () => undefined);

      first.run.child.kill(signal);
      expect(await first.run.exited, 'exit code').to.equal(signal === 'SIGTERM' ? 0 : null);
      await endAll(doomed);
      const second = await startNode(dataDir);
      nodes.push(second);
      const back = resume(second.mqttUrl, subscriber);
      let fresh: MqttClient | undefined;
      try {
        const connack = await back.connack;
        await until(() => back.received.length >= 13, 10_000);
        await sleep(300);
        fresh = await connectDevice(second.mqttUrl, publisher);
        const retained = new Promise<{ payload: string; retain: boolean }>((resolve) =>
          fresh!.once('message', (_topic, payload, packet) => resolve({ payload: payload.toString(), retain: packet.retain })),
        );
        await fresh.subscribeAsync('@msg/retained', { qos: 1 });

        expect(connack.sessionPresent, 'session present').to.equal(true);
        const on = (topic: string) => back.received.filter((m) => m.topic === topic).map((m) => m.payload);
        expect(on('@msg/q1'), 'QoS 1, in order').to.deep.equal(['a1', 'a2', 'a3', 'a4', 'a5', 'r1', 'r2']);
        expect(on('@msg/q2'), 'QoS 2, exactly once, in order').to.deep.equal(['b1', 'b2', 'b3', 'b4', 'b5']);
        expect(on('@msg/will'), 'the will').to.deep.equal(['gone']);
        expect(back.received.filter((m) => m.retain), 'no queued message marked retained').to.deep.equal([]);
        expect(await retained).to.deep.equal({ payload: 'kept', retain: true });
      } finally {
        await endAll(back.client, fresh);
      }
    });
  }
});

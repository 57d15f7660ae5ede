import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MqttClient } from 'mqtt';
import { aGroup, TestDevice } from '../../helpers/devices';
import { httpClient } from '../../helpers/http';
import { listeningPorts, MainProcess, startMainProcess } from '../../helpers/main-process';
import { endAll, sleep } from '../../helpers/mqtt';
import { connect5, nextPublish, publishesTo } from '../../helpers/mqtt5';
import { startStack, Stack } from '../../helpers/stack';

async function until(check: () => boolean, ms: number): Promise<void> {
  for (const deadline = Date.now() + ms; !check() && Date.now() < deadline; ) await sleep(20);
}

const persistent = (sessionExpiryInterval: number) => ({ clean: false, properties: { sessionExpiryInterval } });

/** Resolves when the broker has closed the client's connection (a stop sends DISCONNECT 0x8B first). */
const closed = (client: MqttClient) => new Promise<number>((resolve) => client.once('close', () => resolve(Date.now())));

/**
 * The timers of MQTT 5 sessions kept in the session store (docs/mqtt.md "MQTT 5 timers"): a Session Expiry Interval
 * and a Will Delay Interval outlive the node that set them. One node at a time on one data dir (SQLite, or Redis under
 * a prefix named after the data dir with TEST_SESSION_STORE=redis), stopped and started again.
 */
describe('MQTT 5 timers as a connection ends', function () {
  this.timeout(15_000);
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('[MQTT-3.1.2-23] [MQTT-3.2.2-3] a DISCONNECT that shortens the interval (§3.14.2.2.2) ends the session that much sooner', async () => {
    const [device] = await aGroup(stack, 1);
    const first = await connect5(stack.mqttUrl, device, persistent(60));
    await first.client.subscribeAsync('@msg/kept', { qos: 1 });
    await first.client.endAsync(false, { properties: { sessionExpiryInterval: 1 } });

    await sleep(1000 + 1200);
    const again = await connect5(stack.mqttUrl, device, persistent(60));

    try {
      expect(again.connack.sessionPresent).to.equal(false);
    } finally {
      await endAll(again.client);
    }
  });

  it('[MQTT-3.1.2-8] a DISCONNECT with Reason Code 0x04 sends the will after its delay (§3.14.2.1)', async () => {
    const [device, listener] = await aGroup(stack, 2);
    const rx = await connect5(stack.mqttUrl, listener);
    await rx.client.subscribeAsync('@msg/will', { qos: 1 });
    const will = { topic: '@msg/will', payload: Buffer.from('gone'), qos: 1 as const, retain: false, properties: { willDelayInterval: 1 } };
    const leaving = await connect5(stack.mqttUrl, device, { will, properties: { sessionExpiryInterval: 30 } });
    const seen = publishesTo(rx.client);

    const leftAt = Date.now();
    await leaving.client.endAsync(false, { reasonCode: 0x04 });
    const packet = await nextPublish(rx.client, () => true, 4000);

    try {
      expect(Date.now() - leftAt).to.be.at.least(900);
      expect(packet.payload.toString()).to.equal('gone');
      await sleep(500);
      expect(seen).to.have.length(1);
    } finally {
      await endAll(rx.client);
    }
  });
});

describe('MQTT 5: the will of a connection that took over a session on the same node', function () {
  this.timeout(15_000);
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('[MQTT-3.1.4-3] [MQTT-3.1.3-9] is kept when the connection it replaced sends its own will, and goes after its delay when its connection drops', async () => {
    const [device, listener] = await aGroup(stack, 2);
    const rx = await connect5(stack.mqttUrl, listener);
    await rx.client.subscribeAsync('@msg/takeover/will', { qos: 1 });
    const seen = publishesTo(rx.client);
    const willOf = (payload: string, willDelayInterval: number) => ({
      topic: '@msg/takeover/will', payload: Buffer.from(payload), qos: 1 as const, retain: false, properties: { willDelayInterval },
    });
    const old = await connect5(stack.mqttUrl, device, { will: willOf('old', 0), ...persistent(30) });
    old.client.on('error', () => undefined);

    // The same device again, on the same node: the old connection is closed (0x8E) and sends its will at once.
    const taking = await connect5(stack.mqttUrl, device, { will: willOf('new', 1), ...persistent(30) });
    await until(() => seen.length >= 1, 3000);
    const droppedAt = Date.now();
    taking.client.stream.destroy();
    await until(() => seen.length >= 2, 4000);

    try {
      expect(seen.map((p) => p.payload.toString())).to.deep.equal(['old', 'new']);
      expect(Date.now() - droppedAt, 'after the new will\'s delay').to.be.at.least(900);
    } finally {
      await endAll(rx.client, old.client, taking.client);
    }
  });
});

describe('MQTT 5 timers across a restart of the node', function () {
  this.timeout(30_000);
  let stack: Stack | undefined;
  afterEach(async () => {
    await stack?.stop();
    stack = undefined;
  });

  /** Stops the node, keeping its data, and starts the next one on the same data dir. */
  async function restart(): Promise<Stack> {
    await stack!.stop({ keepData: true });
    stack = await startStack({ dataDir: stack!.dataDir });
    return stack;
  }

  /** A persistent session subscribed to `@msg/kept` at QoS 1, left with a normal DISCONNECT, then sent one message. */
  async function leaveSession(device: TestDevice, publisher: TestDevice, expiry: number): Promise<number> {
    const first = await connect5(stack!.mqttUrl, device, persistent(expiry));
    await first.client.subscribeAsync('@msg/kept', { qos: 1 });
    await first.client.endAsync();
    const leftAt = Date.now();
    const tx = await connect5(stack!.mqttUrl, publisher);
    await tx.client.publishAsync('@msg/kept', 'while away', { qos: 1 });
    await endAll(tx.client);
    return leftAt;
  }

  it('[MQTT-3.1.2-23] [MQTT-3.2.2-3] a session reconnected before its deadline, on the next run, is there: Session Present 1 and its queue', async () => {
    stack = await startStack();
    const [device, publisher] = await aGroup(stack, 2);
    await leaveSession(device, publisher, 30);

    await restart();
    const again = await connect5(stack.mqttUrl, device, persistent(30));

    try {
      const arrived = nextPublish(again.client);
      expect(again.connack.sessionPresent).to.equal(true);
      expect((await arrived).payload.toString()).to.equal('while away');
    } finally {
      await endAll(again.client);
    }
  });

  it('[MQTT-3.1.2-23] [MQTT-3.2.2-3] a deadline that passed while the node restarted ends the session: Session Present 0, nothing queued', async () => {
    stack = await startStack();
    const [device, publisher] = await aGroup(stack, 2);
    const leftAt = await leaveSession(device, publisher, 2);

    await restart();
    await sleep(leftAt + 2000 + 1200 - Date.now());
    const again = await connect5(stack.mqttUrl, device, persistent(30));

    try {
      const seen = publishesTo(again.client);
      expect(again.connack.sessionPresent).to.equal(false);
      await sleep(300);
      expect(seen).to.deep.equal([]);
    } finally {
      await endAll(again.client);
    }
  });

  it('[MQTT-3.1.2-23] a session connected when its node stops expires its interval after the stop', async () => {
    stack = await startStack();
    const [device] = await aGroup(stack, 1);
    const connected = await connect5(stack.mqttUrl, device, persistent(2));
    connected.client.on('error', () => undefined);
    await connected.client.subscribeAsync('@msg/kept', { qos: 1 });
    const stoppedAt = closed(connected.client);

    await restart();
    await sleep((await stoppedAt) + 2000 + 1200 - Date.now());
    const again = await connect5(stack.mqttUrl, device, persistent(30));

    try {
      expect(again.connack.sessionPresent).to.equal(false);
    } finally {
      await endAll(again.client, connected.client);
    }
  });

  it('[MQTT-3.1.2-8] [MQTT-3.1.3-9] a will owed when the node stops is published once by the next run, after its delay and not before', async () => {
    stack = await startStack();
    const [device, listener] = await aGroup(stack, 2);
    // A persistent listener: the will reaches it whether it goes out before the listener is back or after.
    const rx = await connect5(stack.mqttUrl, listener, persistent(60));
    await rx.client.subscribeAsync('@msg/will', { qos: 1 });
    await rx.client.endAsync();
    const will = { topic: '@msg/will', payload: Buffer.from('gone'), qos: 1 as const, retain: false, properties: { willDelayInterval: 3 } };
    const dying = await connect5(stack.mqttUrl, device, { will, properties: { sessionExpiryInterval: 30 } });
    dying.client.on('error', () => undefined);
    // The delay counts from when the server closed the connection, which is after the stop began; the client's own
    // 'close' can come later still (the test shares the node's event loop, which a stop keeps busy).
    const stopBegan = Date.now();

    await restart();
    const back = await connect5(stack.mqttUrl, listener, persistent(60));

    try {
      const packet = await nextPublish(back.client, () => true, 6000);
      const arrivedAt = Date.now();
      const seen = publishesTo(back.client);
      await sleep(1500);
      expect(packet.payload.toString()).to.equal('gone');
      expect(arrivedAt - stopBegan, 'not before the Will Delay Interval').to.be.at.least(3000);
      expect(seen, 'published once').to.deep.equal([]);
    } finally {
      await endAll(back.client, dying.client);
    }
  });
});

/**
 * A crash (kill -9) leaves no deadline and no due time: the connections were cut, not closed. The next run on the
 * same data finds the sessions and wills of its earlier run and counts their intervals from then (docs/mqtt.md "MQTT 5
 * timers"). `npm start` in embedded mode (SQLite in DATA_DIR), as test/integration/process does.
 */
describe('MQTT 5 timers after a crash of the node (kill -9, embedded mode)', function () {
  this.timeout(60_000);
  const ADMIN_TOKEN = 'timers-admin-token-0123456789';
  let dataDir: string;
  const runs: MainProcess[] = [];
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'openpie-timers-crash-'));
  });
  after(async () => {
    for (const run of runs) {
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
      await run.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function startNode() {
    const run = startMainProcess({ DATA_DIR: dataDir, PORT: '0', MQTT_PORT: '0', COAP_PORT: '0', ADMIN_TOKEN, NODE_ID: 'timers-crash' });
    runs.push(run);
    const { httpPort, mqttPort } = await listeningPorts(run);
    return { run, admin: httpClient(`http://127.0.0.1:${httpPort}`, { authorization: `Bearer ${ADMIN_TOKEN}` }), mqttUrl: `mqtt://127.0.0.1:${mqttPort}` };
  }

  it('[MQTT-3.1.2-23] [MQTT-3.1.3-9] counts the session expiry and the will delay of connections it cut from the next start', async () => {
    const first = await startNode();
    const [mortal, expiring, listener] = await aGroup(first, 3);
    const rx = await connect5(first.mqttUrl, listener, persistent(60));
    await rx.client.subscribeAsync('@msg/will', { qos: 1 });
    await rx.client.endAsync();
    const will = { topic: '@msg/will', payload: Buffer.from('gone'), qos: 1 as const, retain: false, properties: { willDelayInterval: 3 } };
    const cutWill = await connect5(first.mqttUrl, mortal, { will, properties: { sessionExpiryInterval: 30 } });
    const cutSession = await connect5(first.mqttUrl, expiring, persistent(2));
    await cutSession.client.subscribeAsync('@msg/kept', { qos: 1 });
    for (const { client } of [cutWill, cutSession]) client.on('error', () => undefined);

    first.run.child.kill('SIGKILL');
    await first.run.exited;
    const second = await startNode();
    const startedAt = Date.now();
    const back = await connect5(second.mqttUrl, listener, persistent(60));
    const seen = publishesTo(back.client);
    let again: MqttClient | undefined;
    try {
      const packet = await nextPublish(back.client, () => true, 8000);
      const arrivedAt = Date.now();
      await sleep(startedAt + 2000 + 1200 - Date.now());
      const resumed = await connect5(second.mqttUrl, expiring, persistent(30));
      again = resumed.client;

      expect(packet.payload.toString()).to.equal('gone');
      expect(arrivedAt - startedAt, 'the will delay counts from the start').to.be.at.least(2500);
      expect(seen, 'published once').to.have.length(1);
      expect(resumed.connack.sessionPresent, 'the session expired 2 s after the start').to.equal(false);
    } finally {
      await endAll(back.client, again, cutWill.client, cutSession.client);
    }
  });
});

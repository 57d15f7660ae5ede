import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { MqttClient } from 'mqtt';
import { backboneEnvOrSkip, Cluster, startCluster } from '../../helpers/cluster';
import { aDevice, TestDevice } from '../../helpers/devices';
import { anApplication, connectApplication, nextJson, subscribeExpecting, tapOf, TestApplication } from '../../helpers/flow-channel';
import { collect, connectDevice, endAll, sleep } from '../../helpers/mqtt';
import { cassandraOrSkip } from '../../helpers/cassandra';
import { dropRedisKeys, randomKeyPrefix, redisSessionEnv, sessionStoreUrlOrSkip } from '../../helpers/redis';
import { Stack } from '../../helpers/stack';

/** Both stores in one run: SQLite with SQLite sessions, and Cassandra with the Redis session store, as production. */
const VARIANTS = [
  { store: 'sqlite', name: 'SQLite' },
  { store: 'cassandra', name: 'Cassandra, Redis sessions' },
] as const;

/** How long the test waits after the last notice, for a copy that should not come. */
const SETTLE_MS = 700;

/**
 * Three nodes on one registry and the MQTT backbone (real Mosquitto): an application connected to node A watches a
 * device connected to node B and writes made through node C, and hears each notice once.
 */
for (const variant of VARIANTS) describe(`the Flow Channel across three nodes (${variant.name}, real Mosquitto backbone)`, function () {
  this.timeout(90_000);
  let cluster: Cluster | undefined;
  let a: Stack;
  let b: Stack;
  let c: Stack;
  let lamp: TestDevice;
  let sensor: TestDevice;
  let app: TestApplication;
  const clients: MqttClient[] = [];

  let redisPrefix: string | undefined;
  before(async function () {
    const env = backboneEnvOrSkip(this);
    if (variant.store === 'cassandra') {
      cassandraOrSkip(this);
      redisPrefix = randomKeyPrefix();
      Object.assign(env, redisSessionEnv(sessionStoreUrlOrSkip(this), redisPrefix));
    }
    cluster = await startCluster(3, env, variant.store);
    [a, b, c] = cluster.nodes;
    const projectid = `p-${randomUUID().slice(0, 8)}`;
    const groupid = `g-${randomUUID().slice(0, 8)}`;
    lamp = await aDevice(a, { projectid, groupid });
    sensor = await aDevice(a, { projectid, groupid });
    app = await anApplication(a, projectid);
  });
  afterEach(async () => endAll(...clients.splice(0)));
  after(async () => {
    await cluster?.stop();
    if (redisPrefix) await dropRedisKeys(process.env.SESSION_STORE_URL!, redisPrefix);
  });

  it('sees on node A each notice of a device on node B and of writes through node C, exactly once', async () => {
    const watcher = await connectApplication(a.mqttUrl, app);
    clients.push(watcher);
    const seen = collect(watcher);
    for (const kind of ['shadow/updated', 'device/changed', 'feed/updated']) await subscribeExpecting(watcher, `@tap/${kind}/${tapOf(lamp)}`, 1);
    await subscribeExpecting(watcher, `@tap/msg/topic/${tapOf(lamp)}/room/#`, 1);

    const online = nextJson(watcher, `@device/status/changed/${lamp.deviceid}`);
    const lampClient = await connectDevice(b.mqttUrl, lamp);
    clients.push(lampClient);
    await online;
    const written = nextJson(watcher, `@shadow/data/updated/${lamp.deviceid}`);
    await c.http('PUT', '/v2/device/shadow/data', { headers: { authorization: lamp.auth }, body: { data: { temp: 24 } } });
    await written;
    const message = nextJson(watcher, `@msg/${lamp.projectid}/${lamp.groupid}/room/1`);
    const sensorClient = await connectDevice(c.mqttUrl, sensor);
    clients.push(sensorClient);
    await sensorClient.publishAsync('@msg/room/1', '{"t":1}', { qos: 1 });
    await message;
    await sleep(SETTLE_MS);

    const topics = seen.map((m) => m.topic).filter((t) => !t.startsWith('@private/'));
    expect(topics.sort()).to.deep.equal(
      [
        `@device/status/changed/${lamp.deviceid}`,
        `@feed/data/updated/${lamp.deviceid}`,
        `@msg/${lamp.projectid}/${lamp.groupid}/room/1`,
        `@shadow/data/updated/${lamp.deviceid}`,
      ].sort(),
    );
  });

  it('serves a request on node A for a device connected to node B, and its write reaches the device there', async () => {
    const lampClient = await connectDevice(b.mqttUrl, lamp);
    clients.push(lampClient);
    await lampClient.subscribeAsync('@shadow/data/updated', { qos: 1 });
    // Node A learns of the connection on node B through the backbone, within the presence lag (docs/production.md).
    const statusOnA = () => a.http('GET', '/v2/device/status', { headers: { authorization: lamp.auth } });
    for (const deadline = Date.now() + 5000; (await statusOnA()).body.status !== 1 && Date.now() < deadline;) await sleep(50);
    const actor = await connectApplication(a.mqttUrl, app);
    clients.push(actor);

    const status = nextJson(actor, '@private/device/status/get/response');
    await actor.publishAsync(`@tap/device/get/${tapOf(lamp)}`, '');
    const heard = nextJson(lampClient, '@shadow/data/updated');
    await actor.publishAsync(`@tap/shadow/update/${tapOf(lamp)}`, JSON.stringify({ data: { led: 1 } }));

    expect(await status).to.include({ deviceid: lamp.deviceid, status: 1 });
    expect(await heard).to.deep.include({ deviceid: lamp.deviceid, data: { led: 1 } });
  });

  it('closes the key\'s connections on every node when it is revoked through one', async () => {
    const other = await anApplication(a, lamp.projectid);
    const onA = await connectApplication(a.mqttUrl, other);
    const onB = await connectApplication(b.mqttUrl, other);
    clients.push(onA, onB);
    const closed = (client: MqttClient) => new Promise<void>((resolve) => client.once('close', () => resolve()));
    const bothClosed = Promise.all([closed(onA), closed(onB)]);

    const revoked = await c.admin('DELETE', `/v2/admin/applications/${other.key}`);
    await bothClosed;

    expect(revoked.status).to.equal(204);
  });

  it('closes on every node the application connections that watch a device whose token is rotated through one', async () => {
    const watched = await aDevice(a, { projectid: lamp.projectid, groupid: lamp.groupid });
    const onA = await connectApplication(a.mqttUrl, app);
    const onB = await connectApplication(b.mqttUrl, app);
    const bystander = await connectApplication(b.mqttUrl, app);
    clients.push(onA, onB, bystander);
    for (const watcher of [onA, onB]) await subscribeExpecting(watcher, `@tap/device/changed/${tapOf(watched)}`, 1);
    await subscribeExpecting(bystander, `@tap/device/changed/${tapOf(lamp)}`, 1);
    const closed = (client: MqttClient) => new Promise<void>((resolve) => client.once('close', () => resolve()));
    const bothClosed = Promise.all([closed(onA), closed(onB)]);

    const rotated = await c.admin('POST', `/v2/admin/devices/${watched.deviceid}/token`);
    await bothClosed;
    await sleep(200);

    expect(rotated.status).to.equal(200);
    expect(bystander.connected, 'a connection that watches other devices').to.equal(true);
  });
});

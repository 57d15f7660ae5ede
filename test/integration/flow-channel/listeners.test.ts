import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { IClientOptions, MqttClient } from 'mqtt';
import { CassandraTestSettings, cassandraOrSkip, cassandraStoreEnv, dropKeyspace, randomKeyspace } from '../../helpers/cassandra';
import { aDevice, TestDevice } from '../../helpers/devices';
import { anApplication, connectApplication, nextJson, subscribeExpecting, tapOf, TestApplication } from '../../helpers/flow-channel';
import { connectRaw, endAll } from '../../helpers/mqtt';
import { dropRedisKeys, randomKeyPrefix, redisSessionEnv, sessionStoreUrlOrSkip } from '../../helpers/redis';
import { startStack, Stack } from '../../helpers/stack';
import { aSelfSignedCertificate, TestCertificate } from '../../helpers/tls';

/** Both stores in one run: SQLite with SQLite sessions, and Cassandra with the Redis session store, as production. */
const VARIANTS = [
  { store: 'sqlite', name: 'SQLite' },
  { store: 'cassandra', name: 'Cassandra, Redis sessions' },
] as const;

/** The Flow Channel on every MQTT listener: TCP, TLS, WebSocket on the HTTP port and on the HTTPS port. */
for (const variant of VARIANTS) describe(`the Flow Channel on every MQTT listener (${variant.name})`, function () {
  this.timeout(60_000);
  let cassandra: { settings: CassandraTestSettings; keyspace: string } | undefined;
  let redisPrefix: string | undefined;
  let certificate: TestCertificate;
  let stack: Stack;
  let device: TestDevice;
  let app: TestApplication;
  const clients: MqttClient[] = [];

  before(async function () {
    const env: Record<string, string> = {};
    if (variant.store === 'cassandra') {
      cassandra = { settings: cassandraOrSkip(this), keyspace: randomKeyspace() };
      redisPrefix = randomKeyPrefix();
      Object.assign(env, cassandraStoreEnv(cassandra.settings, cassandra.keyspace), redisSessionEnv(sessionStoreUrlOrSkip(this), redisPrefix));
    }
    certificate = await aSelfSignedCertificate();
    stack = await startStack({ env: { ...env, ...certificate.env } });
    const projectid = `p-${randomUUID().slice(0, 8)}`;
    device = await aDevice(stack, { projectid });
    app = await anApplication(stack, projectid);
  });
  afterEach(async () => endAll(...clients.splice(0)));
  after(async () => {
    await stack?.stop();
    certificate?.remove();
    if (cassandra) await dropKeyspace(cassandra.settings, cassandra.keyspace);
    if (redisPrefix) await dropRedisKeys(process.env.SESSION_STORE_URL!, redisPrefix);
  });

  const listeners: { name: string; url: () => string; options: () => IClientOptions }[] = [
    { name: 'mqtt:// (MQTT_PORT)', url: () => stack.mqttUrl, options: () => ({}) },
    { name: 'mqtts:// (MQTTS_PORT)', url: () => `mqtts://127.0.0.1:${stack.server.mqttsPort}`, options: () => ({ ca: certificate.cert }) },
    { name: 'ws:// (/mqtt on PORT)', url: () => stack.mqttWsUrl, options: () => ({}) },
    { name: 'wss:// (/mqtt on HTTPS_PORT)', url: () => `wss://127.0.0.1:${stack.server.httpsPort}/mqtt`, options: () => ({ ca: certificate.cert }) },
  ];

  for (const listener of listeners) {
    it(`${listener.name}: logs in with the key, reads a shadow, and watches its updates`, async () => {
      const client = await connectApplication(listener.url(), app, { rejectUnauthorized: true, ...listener.options() });
      clients.push(client);
      await subscribeExpecting(client, `@tap/shadow/updated/${tapOf(device)}`, 1);

      const reply = nextJson(client, '@private/shadow/data/get/response');
      await client.publishAsync(`@tap/shadow/get/${tapOf(device)}`, '');
      const notice = nextJson(client, `@shadow/data/updated/${device.deviceid}`);
      const written = await stack.http('PUT', '/v2/device/shadow/data', { headers: { authorization: device.auth }, body: { data: { via: listener.name } } });

      expect((await reply).deviceid).to.equal(device.deviceid);
      expect(written.status).to.equal(200);
      expect(await notice).to.deep.include({ deviceid: device.deviceid, data: { via: listener.name } });
    });

    it(`${listener.name}: refuses a wrong secret with CONNACK 5 [MQTT-3.2.2-5]`, async () => {
      const outcome = await connectRaw(listener.url(), {
        clientId: `${app.key}-${Date.now()}`,
        username: app.key,
        password: 'not-the-secret',
        rejectUnauthorized: true,
        ...listener.options(),
      }).then(
        (client) => (clients.push(client), 'accepted'),
        (err: { code?: number }) => err.code,
      );

      expect(outcome).to.equal(5);
    });
  }
});

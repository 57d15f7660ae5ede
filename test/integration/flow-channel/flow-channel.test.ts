import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { MqttClient } from 'mqtt';
import { aDevice, TestDevice } from '../../helpers/devices';
import { anApplication, connectApplication, nextJson, subscribeExpecting, tapOf, TestApplication } from '../../helpers/flow-channel';
import { collect, connectDevice, connectRaw, endAll, nextMessage, sleep } from '../../helpers/mqtt';
import { disconnectOf } from '../../helpers/mqtt5';
import { scrape, valueOf } from '../../helpers/prometheus';
import { startStack, Stack } from '../../helpers/stack';

const store = process.env.TEST_STORE === 'cassandra' ? 'Cassandra' : 'SQLite';

/**
 * NETPIE's Flow Channel (docs/mqtt.md "Applications: the Flow Channel"), replayed with the topics and payloads of
 * NETPIE's own Node-RED nodes (node-red-contrib-netpie: flowchannelmqtt.js, shadow.js, status.js, feed.js,
 * message.js), over native MQTT.
 */
describe(`the Flow Channel: applications watch and act for devices (${store})`, function () {
  this.timeout(60_000);
  let stack: Stack;
  const logLines: { msg: string; [k: string]: unknown }[] = [];
  const clients: MqttClient[] = [];
  let projectid: string;
  let groupid: string;
  let lamp: TestDevice;
  let sensor: TestDevice;
  let app: TestApplication;

  before(async () => {
    stack = await startStack({
      env: { LOG_LEVEL: 'info' },
      logStream: { write: (line: string) => void logLines.push(JSON.parse(line) as { msg: string }) },
    });
    projectid = `p-${randomUUID().slice(0, 8)}`;
    groupid = `g-${randomUUID().slice(0, 8)}`;
    lamp = await aDevice(stack, { projectid, groupid, alias: 'lamp' });
    sensor = await aDevice(stack, { projectid, groupid, alias: 'sensor' });
    app = await anApplication(stack, projectid);
  });
  afterEach(async () => endAll(...clients.splice(0)));
  after(async () => stack?.stop());

  const application = async (which = app) => {
    const client = await connectApplication(stack.mqttUrl, which);
    clients.push(client);
    return client;
  };
  const device = async (which: TestDevice, subscriptions: string[] = []) => {
    const client = await connectDevice(stack.mqttUrl, which);
    clients.push(client);
    for (const filter of subscriptions) await client.subscribeAsync(filter, { qos: 1 });
    return client;
  };
  const restShadow = (which: TestDevice, data: object) =>
    stack.http('PUT', '/v2/device/shadow/data', { headers: { authorization: which.auth }, body: { data } });

  describe('logging in', () => {
    it('accepts ClientID {key}-{time}, the key as username and its secret as password', async () => {
      const client = await application();

      expect(client.connected).to.equal(true);
    });

    it('refuses a wrong secret with CONNACK 5 (MQTT 5: 0x86) and closes the connection [MQTT-3.2.2-5] (MQTT 5: [MQTT-3.2.2-7])', async () => {
      const v311 = await connectRaw(stack.mqttUrl, { clientId: `${app.key}-1`, username: app.key, password: 'wrong' }).catch((err: { code?: number }) => err);
      const v5 = await connectRaw(stack.mqttUrl, { clientId: `${app.key}-2`, username: app.key, password: 'wrong', protocolVersion: 5 }).catch(
        (err: { code?: number }) => err,
      );

      expect((v311 as { code?: number }).code).to.equal(5);
      expect((v5 as { code?: number }).code).to.equal(0x86);
    });

    it('throttles guessing a key\'s secret like every credential: counted under door "flow", then CONNACK 3 (MQTT 5: 0x9F) even for the right secret', async () => {
      const guessed = await anApplication(stack, projectid);
      const attempt = (password: string, protocolVersion: 4 | 5 = 4) =>
        connectRaw(stack.mqttUrl, { clientId: `${guessed.key}-${randomUUID().slice(0, 8)}`, username: guessed.key, password, protocolVersion }).then(
          (client) => (clients.push(client), 0),
          (err: { code?: number }) => err.code,
        );
      const before = valueOf(await scrape(stack), 'openpie_auth_failures_total', { door: 'flow', reason: 'invalid_credentials' });

      const codes: unknown[] = [];
      for (let i = 0; i < 10; i++) codes.push(await attempt(`guess-${i}`));
      const right = await attempt(guessed.secret);
      const rightV5 = await attempt(guessed.secret, 5);
      const samples = await scrape(stack);

      expect(codes).to.deep.equal(Array(10).fill(5));
      expect(right, 'the right secret, within the window').to.equal(3);
      expect(rightV5).to.equal(0x9f);
      expect(valueOf(samples, 'openpie_auth_failures_total', { door: 'flow', reason: 'invalid_credentials' }) - before).to.equal(10);
      expect(valueOf(samples, 'openpie_auth_failures_total', { door: 'flow', reason: 'throttled' })).to.be.at.least(2);
    });

    it('refuses a connection that asks to keep a session, or carries a will: both belong to devices', async () => {
      const persistent = await connectRaw(stack.mqttUrl, { clientId: `${app.key}-3`, username: app.key, password: app.secret, clean: false }).catch(
        (err: { code?: number }) => err,
      );
      const withWill = await connectRaw(stack.mqttUrl, {
        clientId: `${app.key}-4`,
        username: app.key,
        password: app.secret,
        will: { topic: '@msg/bye', payload: Buffer.from('x'), qos: 0, retain: false },
      }).catch((err: { code?: number }) => err);

      expect((persistent as { code?: number }).code).to.equal(5);
      expect((withWill as { code?: number }).code).to.equal(5);
    });

    it('refuses a disabled key, and closes the connections of a key that is disabled or revoked', async () => {
      const other = await anApplication(stack, projectid);
      const live = await application(other);
      const closed = new Promise<void>((resolve) => live.once('close', () => resolve()));

      const disabled = await stack.admin('PATCH', `/v2/admin/applications/${other.key}`, { body: { enabled: false } });
      await closed;
      const again = await connectRaw(stack.mqttUrl, { clientId: `${other.key}-5`, username: other.key, password: other.secret }).catch(
        (err: { code?: number }) => err,
      );

      expect(disabled.status).to.equal(200);
      expect((again as { code?: number }).code).to.equal(5);
    });

    it('is not a device: an application connection never makes a device online', async () => {
      await application();

      const status = await stack.http('GET', '/v2/device/status', { headers: { authorization: lamp.auth } });

      expect(status.body.status).to.equal(0);
    });
  });

  describe('requests (published)', () => {
    it('@tap/shadow/get/{deviceid}:{token} answers on @private/shadow/data/get/response with the shadow', async () => {
      await restShadow(lamp, { led: 1, room: 'hall' });
      const client = await application();

      const reply = nextJson(client, '@private/shadow/data/get/response');
      await client.publishAsync(`@tap/shadow/get/${tapOf(lamp)}`, '');

      expect(await reply).to.deep.include({ deviceid: lamp.deviceid, data: { led: 1, room: 'hall' } });
      expect(await reply).to.have.keys('deviceid', 'data', 'rev', 'modified', 'timestamp');
    });

    it('@tap/device/get/{deviceid}:{token} answers on @private/device/status/get/response as the status node reads it', async () => {
      await device(lamp);
      const client = await application();

      const reply = nextJson(client, '@private/device/status/get/response');
      await client.publishAsync(`@tap/device/get/${tapOf(lamp)}`, '');

      expect(await reply).to.deep.equal({ deviceid: lamp.deviceid, projectid, groupid, status: 1, enabled: true });
    });

    it('@tap/shadow/update/{deviceid}:{token} merges {"data":...} into the shadow, and the device hears @shadow/data/updated', async () => {
      const lampClient = await device(lamp, ['@shadow/data/updated']);
      const client = await application();

      const notice = nextJson(lampClient, '@shadow/data/updated');
      await client.publishAsync(`@tap/shadow/update/${tapOf(lamp)}`, JSON.stringify({ data: { led: 0, dim: 40 } }));
      const heard = await notice;
      const shadow = await stack.http('GET', '/v2/device/shadow/data', { headers: { authorization: lamp.auth } });

      expect(heard).to.deep.include({ deviceid: lamp.deviceid, data: { led: 0, dim: 40 } });
      expect(shadow.body.data).to.deep.include({ led: 0, dim: 40 });
    });

    it('@tap/msg/topic/{deviceid}:{token}/{topic} publishes to the device\'s group as the device', async () => {
      const sensorClient = await device(sensor, ['@msg/room/#']);
      const client = await application();

      const got = nextMessage(sensorClient, (t) => t === '@msg/room/2');
      await client.publishAsync(`@tap/msg/topic/${tapOf(lamp)}/room/2`, 'on', { qos: 1 });

      expect((await got).payload).to.equal('on');
    });

    it('@tap/private/topic/{deviceid}:{token}/{topic} reaches the device on @private/{topic}', async () => {
      const lampClient = await device(lamp, ['@private/#']);
      const client = await application();

      const got = nextMessage(lampClient, (t) => t === '@private/cmd/led');
      await client.publishAsync(`@tap/private/topic/${tapOf(lamp)}/cmd/led`, '1', { qos: 1 });

      expect((await got).payload).to.equal('1');
    });
  });

  describe('live notices (subscribed)', () => {
    it('@tap/shadow/updated sends every shadow write as @shadow/data/updated/{deviceid}, whoever wrote it', async () => {
      const client = await application();
      await subscribeExpecting(client, `@tap/shadow/updated/${tapOf(lamp)}`, 1);

      const notice = nextJson(client, `@shadow/data/updated/${lamp.deviceid}`);
      await restShadow(lamp, { temp: 21.5 });

      expect(await notice).to.deep.include({ deviceid: lamp.deviceid, data: { temp: 21.5 } });
    });

    it('@tap/device/changed sends @device/status/changed/{deviceid} when the device connects and when it goes', async () => {
      const client = await application();
      await subscribeExpecting(client, `@tap/device/changed/${tapOf(sensor)}`, 1);

      const online = nextJson(client, `@device/status/changed/${sensor.deviceid}`);
      const sensorClient = await connectDevice(stack.mqttUrl, sensor);
      const up = await online;
      const offline = nextJson(client, `@device/status/changed/${sensor.deviceid}`);
      await sensorClient.endAsync();
      const down = await offline;

      expect(up).to.deep.equal({ deviceid: sensor.deviceid, projectid, groupid, status: 1, enabled: true });
      expect(down).to.deep.include({ deviceid: sensor.deviceid, status: 0 });
    });

    it('@tap/feed/updated sends the points a write recorded as @feed/data/updated/{deviceid} {deviceid,newdata,timestamp}', async () => {
      const client = await application();
      await subscribeExpecting(client, `@tap/feed/updated/${tapOf(lamp)}`, 1);

      const notice = nextJson(client, `@feed/data/updated/${lamp.deviceid}`);
      await restShadow(lamp, { temp: 19, env: { hum: 60 }, label: 'not a point' });
      const got = await notice;

      expect(got).to.deep.include({ deviceid: lamp.deviceid, newdata: { temp: 19, 'env.hum': 60 } });
      expect(got.timestamp).to.be.a('number');
    });

    it('@tap/feed/updated tells of a batch once, with its newest item\'s points (as triggers see only that item)', async () => {
      const client = await application();
      await subscribeExpecting(client, `@tap/feed/updated/${tapOf(sensor)}`, 1);
      const seen = collect(client);
      const now = Date.now();

      const batch = await stack.http('PUT', '/v2/device/shadow/batch', {
        headers: { authorization: sensor.auth },
        body: { batch: [{ data: { t: 1 }, ts: now - 2000 }, { data: { t: 3, h: 50 }, ts: now }, { data: { t: 2 }, ts: now - 1000 }] },
      });
      await sleep(400);

      expect(batch.status).to.equal(200);
      const notices = seen.filter((m) => m.topic === `@feed/data/updated/${sensor.deviceid}`).map((m) => JSON.parse(m.payload));
      expect(notices).to.deep.equal([{ deviceid: sensor.deviceid, newdata: { t: 3, h: 50 }, timestamp: now }]);
    });

    it('@tap/msg/topic/{deviceid}:{token}/{filter} sends the group\'s messages as @msg/{projectid}/{groupid}/{topic}', async () => {
      const client = await application();
      await subscribeExpecting(client, `@tap/msg/topic/${tapOf(lamp)}/room/+`, 1);
      const sensorClient = await device(sensor);

      const got = nextMessage(client, (t) => t.startsWith('@msg/'));
      await sensorClient.publishAsync('@msg/room/1', '22.5', { qos: 1 });

      expect(await got).to.deep.equal({ topic: `@msg/${projectid}/${groupid}/room/1`, payload: '22.5' });
    });

    it('UNSUBSCRIBE of a @tap/... watch stops its notices [MQTT-3.10.4-1]', async () => {
      const client = await application();
      const seen = collect(client);
      await subscribeExpecting(client, `@tap/shadow/updated/${tapOf(sensor)}`, 1);
      await client.unsubscribeAsync(`@tap/shadow/updated/${tapOf(sensor)}`);

      await restShadow(sensor, { after: 1 });
      await sleep(300);

      expect(seen.filter((m) => m.topic.startsWith('@shadow/'))).to.deep.equal([]);
    });
  });

  describe('refusals', () => {
    it('a wrong device token in a request: @private/error with the token masked, the connection stays, the failure counted under door "flow"', async () => {
      const client = await application();
      const before = valueOf(await scrape(stack), 'openpie_auth_failures_total', { door: 'flow', reason: 'invalid_credentials' });
      const wrong = `${lamp.deviceid}:not-the-token-${randomUUID()}`;

      const error = nextJson(client, '@private/error');
      await client.publishAsync(`@tap/shadow/get/${wrong}`, '');
      const body = await error;
      const after = valueOf(await scrape(stack), 'openpie_auth_failures_total', { door: 'flow', reason: 'invalid_credentials' });

      expect(body).to.include({ code: 'INVALID_CREDENTIALS', topic: `@tap/shadow/get/${lamp.deviceid}:***` });
      expect(client.connected).to.equal(true);
      expect(after - before).to.equal(1);
      expect(JSON.stringify(logLines)).to.not.include(wrong.split(':')[1]);
    });

    it('never logs a device token, in any log line of the whole suite', async () => {
      for (const which of [lamp, sensor]) expect(JSON.stringify(logLines)).to.not.include(which.token);
    });

    it('a wrong device token in a subscription: SUBACK 0x80 [MQTT-3.9.3-2], MQTT 5: 0x87', async () => {
      const v311 = await application();
      const v5 = await connectApplication(stack.mqttUrl, app, { protocolVersion: 5 });
      clients.push(v5);

      await subscribeExpecting(v311, `@tap/shadow/updated/${lamp.deviceid}:wrong`, 0x80);
      await subscribeExpecting(v5, `@tap/shadow/updated/${lamp.deviceid}:wrong`, 0x87);
    });

    it('a watch holds only while its device is as it was checked: a rotated token closes the application connection (MQTT 5: DISCONNECT with why), and the old token is refused after', async () => {
      const watched = await aDevice(stack, { projectid, groupid, alias: 'watched' });
      const v5 = await connectApplication(stack.mqttUrl, app, { protocolVersion: 5 });
      clients.push(v5);
      await subscribeExpecting(v5, `@tap/shadow/updated/${tapOf(watched)}`, 1);
      const seen = collect(v5);
      const disconnect = disconnectOf(v5, 5000);

      const rotated = await stack.admin('POST', `/v2/admin/devices/${watched.deviceid}/token`);
      const why = await disconnect;
      await restShadow({ ...watched, auth: `Device ${watched.deviceid}:${rotated.body.token}` }, { after: 'rotation' });
      const again = await connectApplication(stack.mqttUrl, app, { protocolVersion: 5 });
      clients.push(again);

      expect(rotated.status).to.equal(200);
      expect([why.reasonCode, why.properties?.reasonString]).to.deep.equal([0x98, `watched device ${watched.deviceid}: token rotated`]);
      await subscribeExpecting(again, `@tap/shadow/updated/${tapOf(watched)}`, 0x87);
      expect(seen.filter((m) => m.topic.startsWith('@shadow/')), 'notices after the rotation').to.deep.equal([]);
    });

    it('a device of another project, or outside the key\'s groups, is out of reach', async () => {
      const stranger = await aDevice(stack);
      const grouped = await anApplication(stack, projectid, ['another-group']);
      const client = await application();
      const limited = await application(grouped);

      const error = nextJson(client, '@private/error');
      await client.publishAsync(`@tap/shadow/get/${tapOf(stranger)}`, '');
      const limitedError = nextJson(limited, '@private/error');
      await limited.publishAsync(`@tap/shadow/get/${tapOf(lamp)}`, '');

      expect(await error).to.include({ code: 'DEVICE_OUT_OF_REACH' });
      expect(await limitedError).to.include({ code: 'DEVICE_OUT_OF_REACH' });
      await subscribeExpecting(limited, `@tap/shadow/updated/${tapOf(lamp)}`, 0x80);
    });

    it('MQTT 5: a refused request gets PUBACK 0x87 with the reason [MQTT-3.4.2-1], and the connection stays', async () => {
      const client = await connectApplication(stack.mqttUrl, app, { protocolVersion: 5 });
      clients.push(client);

      const outcome = await client.publishAsync(`@tap/shadow/get/${lamp.deviceid}:wrong`, '', { qos: 1 }).then(
        () => 'accepted',
        (err: { code?: number }) => err.code,
      );

      expect(outcome).to.equal(0x87);
      expect(client.connected).to.equal(true);
    });

    it('only @tap/... and its own @private/... are open to an application: no device topic, no wildcard over the service', async () => {
      const client = await application();

      for (const filter of ['#', '@msg/#', '@shadow/data/updated', `$openpie/d/${lamp.deviceid}/#`]) await subscribeExpecting(client, filter, 0x80);
      const error = nextJson(client, '@private/error');
      await client.publishAsync('@msg/room/1', 'x');

      expect(await error).to.include({ code: 'INVALID_TOPIC' });
    });

    it('guessing a device token is throttled like every credential: TOO_MANY_FAILURES after 10 failures of one address and device', async () => {
      const target = await aDevice(stack, { projectid });
      const client = await application();
      const codes: unknown[] = [];
      for (let i = 0; i < 11; i++) {
        const error = nextJson(client, '@private/error');
        await client.publishAsync(`@tap/device/get/${target.deviceid}:guess-${i}`, '');
        codes.push((await error).code);
      }
      const error = nextJson(client, '@private/error');
      await client.publishAsync(`@tap/device/get/${tapOf(target)}`, '');

      expect(codes.slice(0, 10)).to.deep.equal(Array(10).fill('INVALID_CREDENTIALS'));
      expect(codes[10]).to.equal('TOO_MANY_FAILURES');
      expect((await error).code, 'even the right token, until the window passes').to.equal('TOO_MANY_FAILURES');
    });
  });
});

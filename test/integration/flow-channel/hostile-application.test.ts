import { expect } from 'chai';
import { randomInt, randomUUID } from 'node:crypto';
import { MqttClient } from 'mqtt';
import { aDevice, TestDevice } from '../../helpers/devices';
import { anApplication, connectApplication, nextJson, tapOf, TestApplication } from '../../helpers/flow-channel';
import { mulberry32, Rng } from '../../helpers/fuzz/rng';
import { connectDevice, endAll, nextMessage, sleep } from '../../helpers/mqtt';
import { startStack, Stack } from '../../helpers/stack';

/** FLOW_FUZZ_SEED replays a run; CI plays a fixed one. */
const SEED = Number(process.env.FLOW_FUZZ_SEED ?? (process.env.CI ? 7301 : randomInt(2 ** 31)));
const OPERATIONS = Number(process.env.FLOW_FUZZ_OPERATIONS ?? 400);

/**
 * An application that sends whatever it likes on the Flow Channel, as fast as it can: every `@tap/...` form with
 * right, wrong and malformed device parts, other topics, wildcards, QoS 0 to 2, payloads that are no JSON or too large,
 * subscriptions and unsubscriptions in any order, reconnections with the same ClientID. Afterwards the process is up,
 * the application still gets its answers, and a device pair still exchanges messages. Seeded (printed below).
 */
describe(`the Flow Channel under a hostile application (seed ${SEED})`, function () {
  this.timeout(120_000);
  let stack: Stack;
  let lamp: TestDevice;
  let stranger: TestDevice;
  let app: TestApplication;
  const clients: MqttClient[] = [];

  before(async () => {
    stack = await startStack();
    const projectid = `p-${randomUUID().slice(0, 8)}`;
    lamp = await aDevice(stack, { projectid });
    stranger = await aDevice(stack);
    app = await anApplication(stack, projectid);
  });
  after(async () => {
    await endAll(...clients);
    await stack?.stop();
  });

  const devicePart = (rng: Rng) =>
    rng.pick([tapOf(lamp), tapOf(stranger), `${lamp.deviceid}:wrong`, lamp.deviceid, `:${lamp.token}`, 'x:y', `${lamp.deviceid}:${lamp.token}:extra`, '+', '#', '']);
  const topic = (rng: Rng) => {
    const kind = rng.pick(['shadow/get', 'shadow/update', 'device/get', 'msg/topic', 'private/topic', 'shadow/updated', 'device/changed', 'feed/updated', 'nope/x']);
    const tail = rng.pick(['', '/a', '/a/b', '/+', '/#', '/a/#/b', '//', `/${'x'.repeat(300)}`]);
    return rng.pick([`@tap/${kind}/${devicePart(rng)}${tail}`, `@tap/${kind}`, '@msg/a', '@private/#', '@private/x', '#', '$SYS/#', '@shadow/data/update', '@tap']);
  };
  const payload = (rng: Rng) =>
    rng.pick(['', '{"data":{"a":1}}', '{"data":', 'null', '[1,2]', '{"data":{"a":1},"merged":"no"}', Buffer.alloc(300 * 1024, 0x61), Buffer.from([0xff, 0xfe])]);

  it('stays up and keeps serving the application and the devices', async () => {
    const rng = mulberry32(SEED);
    const connect = async () => {
      const c = await connectApplication(stack.mqttUrl, app, { protocolVersion: rng.pick([4, 5] as const) });
      c.on('error', () => undefined);
      clients.push(c);
      return c;
    };
    let client = await connect();
    for (let i = 0; i < OPERATIONS; i++) {
      // A PUBLISH with a wildcard in its topic is a protocol error the broker closes the connection for [MQTT-3.3.2-2].
      if (!client.connected) client = await connect();
      const op = rng.pick(['publish', 'publish', 'publish', 'subscribe', 'unsubscribe', 'reconnect'] as const);
      if (op === 'reconnect' && rng.chance(0.1)) {
        client.end(true);
        client = await connect();
      } else if (op === 'publish') {
        client.publish(topic(rng), payload(rng), { qos: rng.pick([0, 1, 2] as const) }, () => undefined);
      } else if (op === 'subscribe') {
        client.subscribe(topic(rng), { qos: rng.pick([0, 1, 2] as const) }, () => undefined);
      } else if (op === 'unsubscribe') {
        client.unsubscribe(topic(rng), () => undefined);
      }
      if (i % 20 === 0) await sleep(10);
    }
    await sleep(500);

    const fresh = await connectApplication(stack.mqttUrl, app);
    clients.push(fresh);
    const reply = nextJson(fresh, '@private/device/status/get/response');
    await fresh.publishAsync(`@tap/device/get/${tapOf(lamp)}`, '');
    const [a, b] = [await connectDevice(stack.mqttUrl, lamp), await connectDevice(stack.mqttUrl, await aDevice(stack, { projectid: lamp.projectid, groupid: lamp.groupid }))];
    clients.push(a, b);
    await b.subscribeAsync('@msg/after', { qos: 1 });
    const delivered = nextMessage(b, (t) => t === '@msg/after');
    await a.publishAsync('@msg/after', 'still here', { qos: 1 });

    expect(await reply).to.include({ deviceid: lamp.deviceid });
    expect((await delivered).payload).to.equal('still here');
    expect((await stack.http('GET', '/readyz')).status).to.equal(200);
  });
});

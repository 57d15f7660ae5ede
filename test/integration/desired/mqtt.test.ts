import { expect } from 'chai';
import { MqttClient } from 'mqtt';
import { aGroup, TestDevice } from '../../helpers/devices';
import { collect, connectDevice, endAll, nextMessage, sleep } from '../../helpers/mqtt';
import { shadowSession, UPDATE, UPDATED } from '../../helpers/mqtt-shadow';
import { asDevice } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

const DELTA = '@shadow/desired/delta';
const DESIRED_GET = '@shadow/desired/get';
const DESIRED_GET_RESPONSE = '@private/shadow/desired/get/response';

describe('desired state over MQTT (issue 25 §2)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  const operatorWrites = (device: TestDevice, data: object, method = 'PUT') =>
    stack.admin(method, `/v2/admin/devices/${device.deviceid}/shadow/desired`, { body: { data } }).then((res) => {
      expect(res.status, res.text).to.equal(200);
      return res.body;
    });
  const nextDelta = async (client: MqttClient, ms?: number) => JSON.parse((await nextMessage(client, (t) => t === DELTA, ms)).payload);

  async function listening(device: TestDevice, options = {}): Promise<MqttClient> {
    const client = await connectDevice(stack.mqttUrl, device, options);
    await client.subscribeAsync(DELTA, { qos: 1 });
    return client;
  }

  it('pushes the delta to the device on @shadow/desired/delta after a desired write, with both revs', async () => {
    const [device] = await aGroup(stack, 1);
    const client = await listening(device);
    try {
      const pushed = nextDelta(client);

      await operatorWrites(device, { led: 'on', config: { rate: 5 } });

      expect(await pushed).to.deep.equal({ deviceid: device.deviceid, delta: { led: 'on', config: { rate: 5 } }, rev: 1, datarev: 0 });
    } finally {
      await endAll(client);
    }
  });

  it('sends no @shadow/data/updated for a desired write: NETPIE clients would merge it into data', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      await session.client.subscribeAsync(DELTA);
      const from = session.seen.length;
      const pushed = nextDelta(session.client);

      await operatorWrites(device, { led: 'on' });
      await pushed;

      const after = await session.messagesUntilSettled(from);
      expect(after.map((m) => m.topic)).to.deep.equal([DELTA]);
      expect(after.some((m) => m.topic === UPDATED)).to.equal(false);
    } finally {
      await session.end();
    }
  });

  it('gives a device that subscribes later the current delta, as a new subscriber gets a retained message [MQTT-3.3.1-6]', async () => {
    const [device] = await aGroup(stack, 1);
    await operatorWrites(device, { led: 'on' });
    const client = await connectDevice(stack.mqttUrl, device);
    try {
      const pushed = nextDelta(client);

      await client.subscribeAsync(DELTA);

      expect(await pushed).to.deep.include({ delta: { led: 'on' }, rev: 1 });
    } finally {
      await endAll(client);
    }
  });

  it('gives a later subscriber nothing while the delta is empty', async () => {
    const [device] = await aGroup(stack, 1);
    await operatorWrites(device, { led: 'on' });
    const session = await shadowSession(stack, device);
    try {
      // Over REST the write is answered once its delta ({}) is pushed, to nobody yet.
      expect((await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { led: 'on' } } })).status).to.equal(200);
      const from = session.seen.length;

      await session.client.subscribeAsync(DELTA);
      await sleep(200);

      expect((await session.messagesUntilSettled(from)).filter((m) => m.topic === DELTA)).to.deep.equal([]);
    } finally {
      await session.end();
    }
  });

  it('pushes the smaller delta, and {} at last, as the device reports the desired values', async () => {
    const [device] = await aGroup(stack, 1);
    await operatorWrites(device, { led: 'on', fan: 2 });
    const session = await shadowSession(stack, device);
    try {
      await session.client.subscribeAsync(DELTA);
      await nextDelta(session.client);

      const first = nextDelta(session.client);
      await session.client.publishAsync(UPDATE, JSON.stringify({ data: { led: 'on', temp: 20 } }));
      expect(await first).to.deep.include({ delta: { fan: 2 }, datarev: 1 });

      const second = nextDelta(session.client);
      await session.client.publishAsync(UPDATE, JSON.stringify({ data: { fan: 2 } }));
      expect(await second).to.deep.include({ delta: {}, datarev: 2 });
    } finally {
      await session.end();
    }
  });

  it('pushes nothing after a data write that names no desired member', async () => {
    const [device] = await aGroup(stack, 1);
    await operatorWrites(device, { led: 'on' });
    const session = await shadowSession(stack, device);
    try {
      await session.client.subscribeAsync(DELTA);
      await nextDelta(session.client);
      const from = session.seen.length;

      await session.ask(UPDATE, { data: { temp: 20 } }, UPDATED);

      expect((await session.messagesUntilSettled(from)).map((m) => m.topic)).to.deep.equal([UPDATED]);
    } finally {
      await session.end();
    }
  });

  it('pushes to the device itself only, never to the other devices of its group', async () => {
    const [device, groupmate] = await aGroup(stack, 2);
    const other = await listening(groupmate);
    const own = await listening(device);
    try {
      const seen = collect(other);
      const pushed = nextDelta(own);

      await operatorWrites(device, { led: 'on' });
      await pushed;
      await sleep(200);

      expect(seen).to.deep.equal([]);
    } finally {
      await endAll(own, other);
    }
  });

  it('gives a persistent session that comes back the delta written while it was away [MQTT-3.1.2-4]', async () => {
    const [device] = await aGroup(stack, 1);
    const first = await listening(device, { clean: false, clientId: device.deviceid });
    await first.endAsync();

    await operatorWrites(device, { led: 'on' });
    await operatorWrites(device, { led: 'dim' });
    const back = await connectDevice(stack.mqttUrl, device, { clean: false });
    try {
      const deltas: unknown[] = [];
      back.on('message', (topic, payload) => topic === DELTA && deltas.push(JSON.parse(payload.toString()).delta));
      await sleep(500);

      expect(deltas.length).to.be.greaterThan(0);
      expect(deltas[deltas.length - 1]).to.deep.equal({ led: 'dim' });
    } finally {
      await endAll(back);
    }
  });

  it('gives a persistent session subscribed at QoS 0, whose queue keeps nothing, the current delta as it comes back', async () => {
    const [device] = await aGroup(stack, 1);
    const first = await connectDevice(stack.mqttUrl, device, { clean: false });
    await first.subscribeAsync(DELTA, { qos: 0 });
    await first.endAsync();
    await operatorWrites(device, { led: 'on' });

    const pushed = new Promise<unknown>((resolve) => {
      void connectDevice(stack.mqttUrl, device, { clean: false }).then((back) => {
        back.on('message', (topic, payload) => topic === DELTA && resolve(JSON.parse(payload.toString())));
        after.push(back);
      });
    });
    const after: MqttClient[] = [];
    try {
      expect(await Promise.race([pushed, sleep(3000).then(() => 'nothing')])).to.deep.include({ delta: { led: 'on' }, rev: 1 });
    } finally {
      await endAll(...after);
    }
  });

  it('answers @shadow/desired/get on @private/shadow/desired/get/response with the document and its delta', async () => {
    const [device] = await aGroup(stack, 1);
    await operatorWrites(device, { led: 'on', fan: 1 });
    const session = await shadowSession(stack, device);
    try {
      await session.ask(UPDATE, { data: { fan: 1 } }, UPDATED);

      const reply = await session.ask(DESIRED_GET, '', DESIRED_GET_RESPONSE);

      expect(reply.body).to.deep.include({ deviceid: device.deviceid, desired: { led: 'on', fan: 1 }, delta: { led: 'on' }, rev: 1, datarev: 1 });
    } finally {
      await session.end();
    }
  });
});

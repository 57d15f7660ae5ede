import { expect } from 'chai';
import mqtt, { IConnackPacket } from 'mqtt';
import { coapAs, expectCoapError } from '../../helpers/coap';
import { aGroup, TestDevice } from '../../helpers/devices';
import { connectDevice, endAll, sleep } from '../../helpers/mqtt';
import { scrape, valueOf } from '../../helpers/prometheus';
import { startStack, Stack } from '../../helpers/stack';

const QUEUE_LIMIT = 3;
const RETAINED_LIMIT = 2;

/** A persistent session that subscribes, then leaves with a clean DISCONNECT (the session stays). */
async function leaveSubscribed(stack: Stack, device: TestDevice, filters: Record<string, { qos: 0 | 1 | 2 }>): Promise<void> {
  const client = await connectDevice(stack.mqttUrl, device, { clean: false });
  await client.subscribeAsync(filters);
  await client.endAsync();
}

/** Reconnects the persistent session, collecting what it gets from the first byte, for `ms`. */
async function comeBack(stack: Stack, device: TestDevice, ms = 500) {
  const client = mqtt.connect(stack.mqttUrl, { clientId: device.deviceid, username: device.token, clean: false, reconnectPeriod: 0, manualConnect: true });
  const received: { topic: string; payload: string }[] = [];
  client.on('message', (topic, payload) => received.push({ topic, payload: payload.toString() }));
  const connack = await new Promise<IConnackPacket>((resolve, reject) => {
    client.once('connect', resolve);
    client.once('error', reject);
    client.connect();
  });
  await sleep(ms);
  await client.endAsync();
  return { connack, received };
}

describe('persistent sessions: bounds, and what REST and CoAP publishes promise', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({ env: { SESSION_QUEUE_LIMIT: String(QUEUE_LIMIT), RETAINED_PER_GROUP_LIMIT: String(RETAINED_LIMIT) } });
  });
  after(() => stack.stop());

  const rest = (device: TestDevice, path: string, body = 'x') =>
    stack.http('PUT', `/v2/device/${path}`, { body, headers: { authorization: device.auth } });

  describe('PUT /message and /private', () => {
    it('queue for an offline persistent session by default (QoS 1), in order', async () => {
      const [away, sender] = await aGroup(stack, 2);
      await leaveSubscribed(stack, away, { '@msg/news': { qos: 1 }, '@private/#': { qos: 1 } });

      for (const body of ['one', 'two']) expect((await rest(sender, 'message/news', body)).status).to.equal(200);
      expect((await rest(away, 'private/mine', 'three')).status).to.equal(200);
      const back = await comeBack(stack, away);

      expect(back.connack.sessionPresent).to.equal(true);
      expect(back.received).to.deep.equal([
        { topic: '@msg/news', payload: 'one' },
        { topic: '@msg/news', payload: 'two' },
        { topic: '@private/mine', payload: 'three' },
      ]);
    });

    it('with ?qos=0 reach only devices connected now, as MQTT QoS 0 does', async () => {
      const [away, sender] = await aGroup(stack, 2);
      await leaveSubscribed(stack, away, { '@msg/news': { qos: 1 } });

      const res = await rest(sender, 'message/news?qos=0', 'lost');
      expect((await rest(sender, 'message/news?qos=1', 'kept')).status).to.equal(200);
      const back = await comeBack(stack, away);

      expect(res.status).to.equal(200);
      expect(back.received.map((m) => m.payload)).to.deep.equal(['kept']);
    });

    it('refuse a qos or retain they do not know with 400 INVALID_QUERY', async () => {
      const [sender] = await aGroup(stack, 1);

      const answers = await Promise.all(['qos=2', 'qos=high', 'retain=yes', 'qos=1&qos=0'].map((q) => rest(sender, `message/t?${q}`)));

      expect(answers.map((r) => [r.status, r.body.code])).to.deep.equal(Array(4).fill([400, 'INVALID_QUERY']));
    });

    it('with ?retain=true keep the message for later subscribers, up to the group\'s limit (409 RETAINED_LIMIT)', async () => {
      const [sender, later] = await aGroup(stack, 2);

      const kept = await Promise.all(['a', 'b'].map((t) => rest(sender, `message/ret/${t}?retain=true`, `value ${t}`)));
      const third = await rest(sender, 'message/ret/c?retain=true', 'value c');
      const replaced = await rest(sender, 'message/ret/a?retain=true', 'value a2');
      const client = await connectDevice(stack.mqttUrl, later);
      try {
        const seen: string[] = [];
        client.on('message', (topic, payload, packet) => seen.push(`${topic}=${payload} retain=${packet.retain}`));
        await client.subscribeAsync('@msg/ret/#');
        await sleep(300);

        expect(kept.map((r) => r.status)).to.deep.equal([200, 200]);
        expect([third.status, third.body.code]).to.deep.equal([409, 'RETAINED_LIMIT']);
        expect(replaced.status).to.equal(200);
        expect(seen.sort()).to.deep.equal(['@msg/ret/a=value a2 retain=true', '@msg/ret/b=value b retain=true']);
      } finally {
        await endAll(client);
      }
    });
  });

  describe('CoAP PUT /message', () => {
    it('queues for an offline persistent session by default, and takes ?qos= and ?retain= as REST does', async () => {
      const [away, sender] = await aGroup(stack, 2);
      await leaveSubscribed(stack, away, { '@msg/coap': { qos: 1 } });
      const coap = coapAs(stack.coapUrl, sender);

      const queued = await coap('PUT', '/message/coap', { payload: 'queued' });
      const notQueued = await coap('PUT', '/message/coap', { payload: 'not queued', query: ['qos=0'] });
      const refused = await coap('PUT', '/message/coap', { payload: 'x', query: ['qos=2'] });
      const back = await comeBack(stack, away);

      expect([queued.code, notQueued.code]).to.deep.equal(['2.04', '2.04']);
      expectCoapError(refused, '4.00', 400, 'INVALID_QUERY');
      expect(back.received.map((m) => m.payload)).to.deep.equal(['queued']);
    });
  });

  describe('a full queue', () => {
    it('drops the oldest messages, counts them in /metrics and tells the device on @private/error when it returns', async () => {
      const [away, sender] = await aGroup(stack, 2);
      await leaveSubscribed(stack, away, { '@msg/flood': { qos: 1 }, '@private/error': { qos: 0 } });
      const droppedBefore = valueOf(await scrape(stack), 'openpie_mqtt_queue_dropped_total');

      for (let i = 1; i <= QUEUE_LIMIT + 2; i++) expect((await rest(sender, 'message/flood', `m${i}`)).status).to.equal(200);
      const queuedWhileAway = valueOf(await scrape(stack), 'openpie_mqtt_queued_messages');
      const back = await comeBack(stack, away);
      const samples = await scrape(stack);

      expect(back.received.filter((m) => m.topic === '@msg/flood').map((m) => m.payload)).to.deep.equal(['m3', 'm4', 'm5']);
      const notices = back.received.filter((m) => m.topic === '@private/error').map((m) => JSON.parse(m.payload));
      expect(notices).to.have.length(1);
      expect(notices[0]).to.include({ code: 'MESSAGES_DROPPED', dropped: 2 });
      expect(valueOf(samples, 'openpie_mqtt_queue_dropped_total') - droppedBefore).to.equal(2);
      expect(queuedWhileAway).to.be.at.least(QUEUE_LIMIT);
      expect(valueOf(samples, 'openpie_mqtt_queued_messages')).to.be.below(queuedWhileAway);
    });
  });

  describe('an MQTT publish from a device', () => {
    it('reaches an offline persistent session exactly once per QoS 1 and QoS 2 message, in order', async () => {
      const [away, sender] = await aGroup(stack, 2);
      await leaveSubscribed(stack, away, { '@msg/mixed': { qos: 2 } });
      const tx = await connectDevice(stack.mqttUrl, sender);
      try {
        await tx.publishAsync('@msg/mixed', 'q1', { qos: 1 });
        await tx.publishAsync('@msg/mixed', 'q2', { qos: 2 });
        await tx.publishAsync('@msg/mixed', 'q0', { qos: 0 });
      } finally {
        await endAll(tx);
      }

      const back = await comeBack(stack, away);

      expect(back.received.map((m) => m.payload)).to.deep.equal(['q1', 'q2']);
    });

    it('over the retained limit closes the connection after a notice on @private/error', async () => {
      const [sender] = await aGroup(stack, 1);
      const tx = await connectDevice(stack.mqttUrl, sender);
      try {
        await tx.subscribeAsync('@private/error');
        const notice = new Promise<string>((resolve) => tx.once('message', (_t, payload) => resolve(payload.toString())));
        const closed = new Promise<void>((resolve) => tx.once('close', () => resolve()));
        for (const topic of ['r1', 'r2']) await tx.publishAsync(`@msg/${topic}`, 'v', { qos: 1, retain: true });

        tx.publish('@msg/r3', 'v', { qos: 1, retain: true });

        expect(JSON.parse(await notice)).to.include({ code: 'RETAINED_LIMIT' });
        await closed;
      } finally {
        await endAll(tx);
      }
    });
  });
});

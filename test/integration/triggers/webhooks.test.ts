import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { aDevice, TestDevice } from '../../helpers/devices';
import { connectDevice } from '../../helpers/mqtt';
import { coapAs } from '../../helpers/coap';
import { BATCH, BATCH_RESPONSE, shadowSession, UPDATE, UPDATED } from '../../helpers/mqtt-shadow';
import { asDevice, expectError } from '../../helpers/rest-device';
import { Stack, startStack } from '../../helpers/stack';
import { eventually, startWebhookServer, WebhookServer } from '../../helpers/webhook-server';

/** This suite's webhooks go to a test server on 127.0.0.1, which the operator allow-lists. */
const ALLOW_LOOPBACK = { WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_TIMEOUT_MS: '2000' };

describe('triggers and webhooks (netpie reference §8, spec 4.6 rule 6)', () => {
  let stack: Stack;
  let server: WebhookServer;
  before(async () => {
    stack = await startStack({ env: ALLOW_LOOPBACK });
  });
  after(() => stack.stop());
  beforeEach(async () => {
    server = await startWebhookServer();
  });
  afterEach(() => server.close());

  async function deviceWithTrigger(trigger: object, hook: object = {}): Promise<TestDevice> {
    const device = await aDevice(stack, { projectid: `p-${randomUUID().slice(0, 8)}` });
    const hookRes = await stack.admin('PUT', `/v2/admin/projects/${device.projectid}/hooks/alert`, {
      body: { type: 'WEBHOOK', config: { method: 'POST', uri: `${server.url}/alert?d={{$DEVICEID}}&m={{context.msg}}`, ...hook } },
    });
    expect(hookRes.status, hookRes.text).to.equal(200);
    const res = await stack.admin('PUT', `/v2/admin/devices/${device.deviceid}/triggers`, { body: { trigger: [{ action: 'alert', ...trigger }] } });
    expect(res.status, res.text).to.equal(200);
    return device;
  }

  const deliveries = async (device: TestDevice) =>
    (await stack.admin('GET', `/v2/admin/projects/${device.projectid}/deliveries?deviceid=${device.deviceid}`)).body.deliveries as Record<string, unknown>[];
  const used = async (device: TestDevice) =>
    (await stack.admin('GET', `/v2/admin/projects/${device.projectid}/quotas`)).body.quotas as Record<string, { used: number }>;

  it('sends the templated webhook when a write makes the condition true, and logs the delivery', async () => {
    const device = await deviceWithTrigger(
      {
        event: 'SHADOW.UPDATED',
        condition: '$NEW.temp > 30 && $PREV.temp <= 30',
        context: { msg: 'hot & humid: {{ $NEW.temp }}', temp: '{{ $NEW.temp }}' },
      },
      {
        header: { 'X-Device': '{{$ALIAS}}' },
        body: '{"device":"{{$DEVICEID}}","temp":{{context.temp}},"was":{{$PREV.temp}},"now":{{$CUR}},"text":"{{context.msg}}"}',
      },
    );
    const rest = asDevice(stack, device);
    await rest('PUT', '/v2/device/shadow/data', { body: { data: { temp: 25, humid: 80 } } });

    const write = await rest('PUT', '/v2/device/shadow/data', { body: { data: { temp: 31.5 } } });

    expect(write.status).to.equal(200);
    const [request] = await server.waitFor(1);
    expect(request.method).to.equal('POST');
    expect(request.url).to.equal(`/alert?d=${device.deviceid}&m=hot%20%26%20humid%3A%2031.5`);
    expect(request.headers['x-device']).to.equal(device.alias);
    expect(request.headers['content-type']).to.equal('application/json');
    expect(JSON.parse(request.body)).to.deep.equal({
      device: device.deviceid,
      temp: 31.5,
      was: 25,
      now: { temp: 31.5, humid: 80 },
      text: 'hot & humid: 31.5',
    });
    const [entry] = await eventually(() => deliveries(device), (d) => d.length === 1);
    expect(entry).to.include({ triggerid: '1', event: 'SHADOW.UPDATED', hook: 'alert', outcome: 'delivered', status: 200, attempts: 1 });
    expect(entry.target).to.equal(`POST ${server.url}/alert?d={{$DEVICEID}}&m={{context.msg}}`);
    expect((await used(device)).triggerRuns.used).to.equal(1);
  });

  it('does not fire, nor charge, when the condition is false, on trigger:false, or for a back-dated write', async () => {
    const device = await deviceWithTrigger({ event: 'SHADOW.UPDATED', condition: '$NEW.temp > 30' });
    const rest = asDevice(stack, device);

    await rest('PUT', '/v2/device/shadow/data', { body: { data: { temp: 20 } } });
    await rest('PUT', '/v2/device/shadow/data', { body: { data: { temp: 40 }, trigger: false } });
    await rest('PUT', '/v2/device/shadow/data', { body: { data: { temp: 50 }, timestamp: -60_000 } });
    await rest('PUT', '/v2/device/shadow/batch', { body: { batch: [{ data: { temp: 60 }, ts: -120_000 }] } });
    await rest('PUT', '/v2/device/shadow/data', { body: { data: { temp: 35 } } });

    const requests = await server.waitFor(1);
    await new Promise((r) => setTimeout(r, 200));
    expect(server.received).to.have.length(1);
    expect(requests[0].url).to.contain(device.deviceid);
    expect((await used(device)).triggerRuns.used).to.equal(1);
  });

  it('fires one trigger, for the newest item, when a batch of 100 items comes over MQTT', async () => {
    const device = await deviceWithTrigger({ event: 'SHADOW.UPDATED', condition: '$NEW.f >= 0' }, { body: '{{$NEW.f}} at {{$TIMESTAMP}}' });
    await stack.admin('PUT', `/v2/admin/devices/${device.deviceid}/schema`, {
      body: { properties: { f: { type: 'number', autofill: true, operation: { transform: { expression: '$.c * 2' } } } } },
    });
    const session = await shadowSession(stack, device);
    try {
      const now = Date.now();
      // Sent newest first: the trigger must see the item with the highest timestamp, not the last one in the array.
      const batch = Array.from({ length: 100 }, (_, i) => ({ data: { c: 99 - i }, ts: now - i * 1000 }));

      const reply = await session.ask(BATCH, { ackid: 5, batch }, BATCH_RESPONSE);

      expect(reply.body).to.include({ total: 100, applied: 100 });
      const [request] = await server.waitFor(1);
      expect(request.body).to.equal(`198 at ${now}`);
      await new Promise((r) => setTimeout(r, 200));
      expect(server.received).to.have.length(1);
      expect(await used(device)).to.deep.include({
        shadowOps: { used: 1, limit: null },
        expressionRuns: { used: 100, limit: null },
        triggerRuns: { used: 1, limit: null },
      });
    } finally {
      await session.end();
    }
  });

  it('fires for writes over MQTT and CoAP as for REST', async () => {
    const device = await deviceWithTrigger({ event: 'SHADOW.UPDATED' }, { body: '{{$NEW.via}}' });
    const session = await shadowSession(stack, device);
    try {
      await session.ask(UPDATE, { data: { via: 'mqtt' } }, UPDATED);
      await server.waitFor(1);
      const coap = await coapAs(stack.coapUrl, device)('PUT', '/shadow/data', { payload: '{data:{via:"coap"}}' });

      expect(coap.code, coap.text).to.equal('2.04');
      expect((await server.waitFor(2)).map((r) => r.body)).to.deep.equal(['mqtt', 'coap']);
    } finally {
      await session.end();
    }
  });

  it('retries a webhook that answers 503, with backoff, and logs the attempts', async () => {
    const device = await deviceWithTrigger({ event: 'SHADOW.UPDATED' });
    server.answerWith(503);

    await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { a: 1 } } });

    await server.waitFor(2);
    const [entry] = await eventually(() => deliveries(device), (d) => d.length === 1);
    expect(entry).to.include({ outcome: 'delivered', attempts: 2, status: 200 });
  });

  it('gives up after WEBHOOK_MAX_ATTEMPTS and does not retry a 4xx', async () => {
    const device = await deviceWithTrigger({ event: 'SHADOW.UPDATED' });
    server.answerWith(404);

    await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { a: 1 } } });

    const [entry] = await eventually(() => deliveries(device), (d) => d.length === 1);
    expect(entry).to.include({ outcome: 'failed', attempts: 1, status: 404, error: 'HTTP 404' });
    expect(server.received).to.have.length(1);
  });

  it('fires DEVICE.STATUSCHANGED on MQTT connect and disconnect, with $NEW.STATUS and $OLD.STATUSTEXT', async () => {
    const device = await deviceWithTrigger(
      { event: 'DEVICE.STATECHANGED' },
      { body: '{{$NEW.STATUS}} {{$NEW.STATUSTEXT}} was {{$OLD.STATUSTEXT}}' },
    );

    const client = await connectDevice(stack.mqttUrl, device);
    await server.waitFor(1);
    await client.endAsync();
    const requests = await server.waitFor(2);

    expect(requests.map((r) => r.body)).to.deep.equal(['1 online was offline', '0 offline was online']);
    const stored = await stack.admin('GET', `/v2/admin/devices/${device.deviceid}/triggers`);
    expect(stored.body.trigger[0].event).to.equal('DEVICE.STATUSCHANGED');
  });

  it('logs a spent trigger quota instead of running the hooks, and the write still succeeds', async () => {
    const device = await deviceWithTrigger({ event: 'SHADOW.UPDATED' });
    await stack.admin('PUT', `/v2/admin/projects/${device.projectid}/quotas`, { body: { triggerRuns: 0 } });

    const write = await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { a: 1 } } });

    expect(write.status).to.equal(200);
    const [entry] = await eventually(() => deliveries(device), (d) => d.length === 1);
    expect(entry).to.include({ outcome: 'quota_exceeded', triggerid: '1' });
    expect(entry.error).to.match(/trigger runs \(triggerRuns\)/);
    expect(server.received).to.have.length(0);
  });

  it('logs a condition that cannot be evaluated, and a hook that is gone', async () => {
    const device = await deviceWithTrigger({ event: 'SHADOW.UPDATED', condition: '$NEW.a * "x" > 1' });
    await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { a: 1 } } });
    const [broken] = await eventually(() => deliveries(device), (d) => d.length === 1);
    expect(broken).to.include({ outcome: 'condition_error' });
    expect(broken.error).to.match(/^condition: cannot apply \*/);

    await stack.admin('PUT', `/v2/admin/devices/${device.deviceid}/triggers`, { body: { trigger: [{ event: 'SHADOW.UPDATED', action: 'alert' }] } });
    await stack.admin('DELETE', `/v2/admin/projects/${device.projectid}/hooks/alert`);
    await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { a: 2 } } });

    const [gone] = await eventually(() => deliveries(device), (d) => d.length === 2);
    expect(gone).to.include({ outcome: 'skipped', hook: 'alert' });
  });

  it('publishes a MESSAGE hook to the device\'s group and to the device\'s private topic', async () => {
    const projectid = `p-${randomUUID().slice(0, 8)}`;
    const [device, mate] = [await aDevice(stack, { projectid, groupid: 'g' }), await aDevice(stack, { projectid, groupid: 'g' })];
    await stack.admin('PUT', `/v2/admin/projects/${projectid}/hooks/group`, { body: { type: 'MESSAGE', config: { topic: '@msg/alerts/temp', payload: 'temp={{$NEW.temp}}' } } });
    await stack.admin('PUT', `/v2/admin/projects/${projectid}/hooks/self`, { body: { type: 'MESSAGE', config: { topic: '@private/alerts' } } });
    await stack.admin('PUT', `/v2/admin/devices/${device.deviceid}/triggers`, {
      body: { trigger: [{ event: 'SHADOW.UPDATED', action: ['group', 'self'], msg: 'hot: {{$NEW.temp}}' }] },
    });
    const listener = await connectDevice(stack.mqttUrl, mate);
    const self = await connectDevice(stack.mqttUrl, device);
    try {
      await listener.subscribeAsync('@msg/alerts/#');
      await self.subscribeAsync('@private/alerts');
      const heard = new Promise<string>((resolve) => listener.once('message', (topic, payload) => resolve(`${topic} ${payload}`)));
      const told = new Promise<string>((resolve) => self.once('message', (topic, payload) => resolve(`${topic} ${payload}`)));

      await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { temp: 40 } } });

      expect(await heard).to.equal('@msg/alerts/temp temp=40');
      expect(await told).to.equal('@private/alerts hot: 40');
    } finally {
      await Promise.all([listener.endAsync(true), self.endAsync(true)]);
    }
  });

  describe('the address guard (SSRF)', () => {
    it('refuses a webhook to a non-public address when the operator has not allow-listed it', async () => {
      const plain = await startStack();
      try {
        for (const uri of ['http://127.0.0.1:9/x', 'http://localhost/x', 'http://10.0.0.5/x', 'http://169.254.169.254/latest', 'http://[::1]/x', 'http://[::ffff:192.168.0.1]/']) {
          const res = await plain.admin('PUT', '/v2/admin/projects/p/hooks/h', { body: { type: 'WEBHOOK', config: { method: 'GET', uri } } });
          expectError(res, 400, 'WEBHOOK_ADDRESS_REFUSED');
          expect(res.body.message, uri).to.match(/WEBHOOK_ALLOW_HOSTS/);
        }
      } finally {
        await plain.stop();
      }
    });

    it('refuses at delivery a stored webhook whose address is no longer allowed, logging why', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'openpie-ssrf-'));
      const allowing = await startStack({ dataDir, env: ALLOW_LOOPBACK });
      const device = await aDevice(allowing);
      await allowing.admin('PUT', `/v2/admin/projects/${device.projectid}/hooks/h`, { body: { type: 'WEBHOOK', config: { method: 'GET', uri: `${server.url}/x` } } });
      await allowing.admin('PUT', `/v2/admin/devices/${device.deviceid}/triggers`, { body: { trigger: [{ event: 'SHADOW.UPDATED', action: 'h' }] } });
      await allowing.stop({ keepData: true });

      const strict = await startStack({ dataDir });
      try {
        await asDevice(strict, device)('PUT', '/v2/device/shadow/data', { body: { data: { a: 1 } } });
        const log = await eventually(
          async () => (await strict.admin('GET', `/v2/admin/projects/${device.projectid}/deliveries`)).body.deliveries as Record<string, unknown>[],
          (d) => d.length === 1,
        );
        expect(log[0]).to.include({ outcome: 'refused', attempts: 1 });
        expect(log[0].error).to.match(/127\.0\.0\.1 is not a public address/);
        expect(server.received).to.have.length(0);
      } finally {
        await strict.stop();
      }
    });
  });
});

import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { coapAs } from '../../helpers/coap';
import { aDevice, TestDevice } from '../../helpers/devices';
import { connectDevice, nextMessage } from '../../helpers/mqtt';
import { BATCH, BATCH_RESPONSE, expectErrorReply, restShadow, shadowSession, UPDATE, UPDATE_RESPONSE } from '../../helpers/mqtt-shadow';
import { asDevice, expectError } from '../../helpers/rest-device';
import { Stack, startStack } from '../../helpers/stack';

const newProject = () => `p-${randomUUID().slice(0, 8)}`;

describe('quotas (netpie reference §9, spec section 8)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  const usage = async (projectid: string) => {
    const res = await stack.admin('GET', `/v2/admin/projects/${projectid}/quotas`);
    expect(res.status, res.text).to.equal(200);
    return Object.fromEntries(Object.entries(res.body.quotas as Record<string, { used: number }>).map(([q, v]) => [q, v.used]));
  };
  const limit = async (projectid: string, limits: Record<string, number | null>) => {
    const res = await stack.admin('PUT', `/v2/admin/projects/${projectid}/quotas`, { body: limits });
    expect(res.status, res.text).to.equal(200);
  };
  const deviceOf = (projectid: string) => aDevice(stack, { projectid });

  describe('admin API', () => {
    it('reports every counter at 0 and every limit unlimited for a new project, with the month and when it refills', async () => {
      const res = await stack.admin('GET', `/v2/admin/projects/${newProject()}/quotas`);

      const month = new Date().toISOString().slice(0, 7);
      expect(res.body).to.deep.include({ month });
      expect(new Date(res.body.resetsAt).getUTCDate()).to.equal(1);
      expect(res.body.quotas).to.deep.equal({
        shadowOps: { used: 0, limit: null },
        expressionRuns: { used: 0, limit: null },
        triggerRuns: { used: 0, limit: null },
        messages: { used: 0, limit: null },
        apiCalls: { used: 0, limit: null },
      });
    });

    it('replaces the limits with PUT; a quota left out or null is unlimited', async () => {
      const projectid = newProject();
      await limit(projectid, { shadowOps: 10, messages: 5 });

      const res = await stack.admin('PUT', `/v2/admin/projects/${projectid}/quotas`, { body: { messages: 7, shadowOps: null } });

      expect(res.body.quotas.shadowOps.limit).to.equal(null);
      expect(res.body.quotas.messages.limit).to.equal(7);
    });

    it('reads another month with ?month=YYYY-MM', async () => {
      const res = await stack.admin('GET', `/v2/admin/projects/${newProject()}/quotas?month=2024-02`);
      expect(res.body).to.include({ month: '2024-02', resetsAt: '2024-03-01T00:00:00.000Z' });
    });

    const bad: [string, string, unknown, number, string][] = [
      ['a negative limit', 'PUT', { shadowOps: -1 }, 400, 'INVALID_BODY'],
      ['a fractional limit', 'PUT', { shadowOps: 1.5 }, 400, 'INVALID_BODY'],
      ['a limit as text', 'PUT', { shadowOps: '10' }, 400, 'INVALID_BODY'],
      ['an unknown quota', 'PUT', { shadow: 10 }, 400, 'INVALID_BODY'],
      ['not JSON', 'PUT', '{', 400, 'INVALID_JSON'],
    ];
    for (const [what, method, body, status, code] of bad) {
      it(`refuses ${what}: ${status} ${code}`, async () => {
        expectError(await stack.admin(method, `/v2/admin/projects/${newProject()}/quotas`, { body }), status, code);
      });
    }

    it('refuses a bad month and a bad project id: 400 INVALID_QUERY', async () => {
      expectError(await stack.admin('GET', `/v2/admin/projects/${newProject()}/quotas?month=2024-13`), 400, 'INVALID_QUERY');
      expectError(await stack.admin('GET', `/v2/admin/projects/${newProject()}/quotas?when=now`), 400, 'INVALID_QUERY');
      expectError(await stack.admin('GET', '/v2/admin/projects/-x/quotas'), 400, 'INVALID_QUERY');
    });
  });

  describe('counting', () => {
    it('charges a write per started KiB of data, a read per started KiB of the shadow, a batch 1, and API calls per 4 KiB each way', async () => {
      const projectid = newProject();
      const device = await deviceOf(projectid);
      const rest = asDevice(stack, device);

      await rest('PUT', '/v2/device/shadow/data', { body: { data: { blob: 'x'.repeat(1500) } } });
      await rest('GET', '/v2/device/shadow/data');
      await rest('PUT', '/v2/device/shadow/batch', { body: { batch: [{ data: { a: 1 }, ts: -1 }, { data: { a: 2 }, ts: 0 }] } });

      // write 2 + read 2 + batch 1; API calls: write 1+1, read 1+1, batch 1+1.
      expect(await usage(projectid)).to.deep.include({ shadowOps: 5, apiCalls: 6, expressionRuns: 0 });
    });

    it('charges a batch of 100 items over MQTT with one expression field 100 expression runs and 1 shadow operation', async () => {
      const projectid = newProject();
      const device = await deviceOf(projectid);
      await stack.admin('PUT', `/v2/admin/devices/${device.deviceid}/schema`, {
        body: { properties: { f: { type: 'number', autofill: true, operation: { transform: { expression: '$.c * 2' } } } } },
      });
      const session = await shadowSession(stack, device);
      try {
        const batch = Array.from({ length: 100 }, (_, i) => ({ data: { c: i }, ts: i - 100 }));

        const reply = await session.ask(BATCH, { ackid: 1, batch }, BATCH_RESPONSE);

        expect(reply.body).to.include({ ackid: 1, total: 100, applied: 100 });
        expect(await usage(projectid)).to.deep.include({ shadowOps: 1, expressionRuns: 100 });
      } finally {
        await session.end();
      }
    });

    it('charges MQTT connects, subscriptions, publishes and deliveries as messages, not the shadow replies', async () => {
      const projectid = newProject();
      const [a, b] = [await aDevice(stack, { projectid, groupid: 'g' }), await aDevice(stack, { projectid, groupid: 'g' })];
      const sub = await connectDevice(stack.mqttUrl, a);
      const pub = await connectDevice(stack.mqttUrl, b);
      try {
        await sub.subscribeAsync('@msg/room/#');
        const got = nextMessage(sub);
        await pub.publishAsync('@msg/room/lamp', Buffer.alloc(6 * 1024));
        await got;
        await pub.publishAsync('@shadow/data/get', '');

        // 2 connects + 1 subscription + a 6 KiB publish (2) + its delivery (2).
        expect((await usage(projectid)).messages).to.equal(7);
      } finally {
        await Promise.all([sub.endAsync(true), pub.endAsync(true)]);
      }
    });

    it('keeps the counters across a restart', async () => {
      const dataDir = (await import('node:fs')).mkdtempSync(`${(await import('node:os')).tmpdir()}/openpie-quota-`);
      const first = await startStack({ dataDir });
      const projectid = newProject();
      const device = await aDevice(first, { projectid });
      await asDevice(first, device)('PUT', '/v2/device/shadow/data', { body: { data: { a: 1 } } });
      await first.stop({ keepData: true });

      const second = await startStack({ dataDir });
      try {
        const res = await second.admin('GET', `/v2/admin/projects/${projectid}/quotas`);
        expect(res.body.quotas.shadowOps.used).to.equal(1);
        expect(res.body.quotas.apiCalls.used).to.equal(2);
      } finally {
        await second.stop();
      }
    });
  });

  describe('refusing when a quota is spent, never silently', () => {
    async function spentShadowQuota(): Promise<{ projectid: string; device: TestDevice }> {
      const projectid = newProject();
      const device = await deviceOf(projectid);
      await limit(projectid, { shadowOps: 1 });
      const first = await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { n: 1 } } });
      expect(first.status, first.text).to.equal(200);
      return { projectid, device };
    }

    it('REST: 429 QUOTA_EXCEEDED naming the quota, with Retry-After, and nothing stored', async () => {
      const { projectid, device } = await spentShadowQuota();

      const res = await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { n: 2 } } });

      expectError(res, 429, 'QUOTA_EXCEEDED');
      expect(res.body).to.include({ quota: 'shadowOps', limit: 1, used: 1 });
      expect(res.body.message).to.contain('shadow operations');
      expect(Number(res.headers.get('retry-after'))).to.be.greaterThan(0);
      expect(res.body.retryAfter).to.equal(Number(res.headers.get('retry-after')));
      await limit(projectid, {});
      expect((await restShadow(stack, device)).data).to.deep.equal({ n: 1 });
      const metrics = await stack.http('GET', '/metrics');
      expect(metrics.text).to.match(/^openpie_quota_refusals_total\{quota="shadowOps"\} [1-9]/m);
    });

    it('MQTT: an error reply on the private reply topic, the connection staying up', async () => {
      const { device } = await spentShadowQuota();
      const session = await shadowSession(stack, device);
      try {
        const reply = await session.ask(UPDATE, { data: { n: 2 } }, UPDATE_RESPONSE);
        const batchReply = await session.ask(BATCH, { ackid: 9, batch: [{ data: { n: 3 }, ts: 0 }] }, BATCH_RESPONSE);

        expectErrorReply(reply, 429, 'QUOTA_EXCEEDED');
        expect(reply.body.quota).to.equal('shadowOps');
        expectErrorReply(batchReply, 429, 'QUOTA_EXCEEDED');
        expect(batchReply.body.ackid).to.equal(9);
        expect(session.client.connected).to.equal(true);
      } finally {
        await session.end();
      }
    });

    it('CoAP: 4.29 with the error body', async () => {
      const { device } = await spentShadowQuota();

      const res = await coapAs(stack.coapUrl, device)('PUT', '/shadow/data', { payload: { data: { n: 2 } } });

      expect(res.code, res.text).to.equal('4.29');
      expect(res.body).to.include({ status: 429, code: 'QUOTA_EXCEEDED', quota: 'shadowOps' });
    });

    it('refuses a whole batch whose expression runs would pass the limit, storing nothing', async () => {
      const projectid = newProject();
      const device = await deviceOf(projectid);
      await stack.admin('PUT', `/v2/admin/devices/${device.deviceid}/schema`, {
        body: { properties: { f: { autofill: true, operation: { transform: { expression: '1' } } } } },
      });
      await limit(projectid, { expressionRuns: 5 });

      const res = await asDevice(stack, device)('PUT', '/v2/device/shadow/batch', {
        body: { batch: Array.from({ length: 6 }, (_, i) => ({ data: { i }, ts: i - 6 })) },
      });

      expectError(res, 429, 'QUOTA_EXCEEDED');
      expect(res.body.quota).to.equal('expressionRuns');
      expect(await usage(projectid)).to.deep.include({ shadowOps: 0, expressionRuns: 0 });
    });

    it('refuses Device API calls once the API-call quota is spent', async () => {
      const projectid = newProject();
      const device = await deviceOf(projectid);
      await limit(projectid, { apiCalls: 2 });

      const first = await asDevice(stack, device)('GET', '/v2/device/status');
      const second = await asDevice(stack, device)('GET', '/v2/device/status');

      expect(first.status).to.equal(200);
      expectError(second, 429, 'QUOTA_EXCEEDED');
      expect(second.body.quota).to.equal('apiCalls');
    });

    it('refuses an MQTT connect once the messages quota is spent (CONNACK 3), and a publish with a notice on @private/error', async () => {
      const projectid = newProject();
      const device = await deviceOf(projectid);
      await limit(projectid, { messages: 2 });
      const client = await connectDevice(stack.mqttUrl, device);
      try {
        await client.subscribeAsync('@private/#');
        const notice = nextMessage(client, (t) => t === '@private/error');
        const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));

        await client.publishAsync('@msg/a', Buffer.alloc(5000));

        const body = JSON.parse((await notice).payload);
        expect(body).to.include({ status: 429, code: 'QUOTA_EXCEEDED', quota: 'messages' });
        expect(body.message).to.match(/disconnected$/);
        await closed;
        const refused = await connectDevice(stack.mqttUrl, device).then(
          (c) => c.endAsync(true).then(() => undefined),
          (err: Error & { code?: number }) => err,
        );
        expect(refused?.code).to.equal(3);
      } finally {
        await client.endAsync(true);
      }
    });
  });
});

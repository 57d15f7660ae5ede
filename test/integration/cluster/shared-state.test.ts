import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { backboneEnvOrSkip, Cluster, startCluster } from '../../helpers/cluster';
import { cassandraOrSkip } from '../../helpers/cassandra';
import { aDevice, TestDevice } from '../../helpers/devices';
import { kairosDbUrlOrSkip } from '../../helpers/kairosdb';
import { connectDevice, sleep } from '../../helpers/mqtt';
import { asDevice } from '../../helpers/rest-device';
import { Stack } from '../../helpers/stack';
import { eventually, startWebhookServer, WebhookServer } from '../../helpers/webhook-server';

/**
 * How soon another node obeys an admin change: the change notice crosses the backbone in milliseconds. Well below
 * the 5 s after which copies expire anyway, so these tests fail if notices stopped working.
 */
const NOTICE_MS = 1500;

const SCHEMA = {
  properties: { tempF: { type: 'number', autofill: true, operation: { transform: { expression: '($.tempC * 1.8) + 32', dp: 1 } } }, tempC: { type: 'number' } },
};

/** Polls `read` until `done`; answers how long it took, or fails after `ms`. */
async function msUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, ms: number): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (done(await read())) return Date.now() - start;
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms; last: ${JSON.stringify(await read())}`);
    await sleep(20);
  }
}

describe('three nodes share what admins set and what devices spend (real Cassandra, KairosDB, Mosquitto)', function () {
  this.timeout(60_000);
  let cluster: Cluster | undefined;
  let a: Stack;
  let b: Stack;
  let c: Stack;
  let webhooks: WebhookServer;
  before(async function () {
    cassandraOrSkip(this);
    const env = {
      ...backboneEnvOrSkip(this),
      TIMESERIES: 'kairosdb',
      KAIROSDB_URL: await kairosDbUrlOrSkip(this),
      WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
      WEBHOOK_TIMEOUT_MS: '2000',
    };
    cluster = await startCluster(3, env, 'cassandra');
    [a, b, c] = cluster.nodes;
    webhooks = await startWebhookServer();
  });
  after(async () => {
    await webhooks?.close();
    await cluster?.stop();
  });

  const aProject = () => `p-${randomUUID().slice(0, 8)}`;
  const write = (node: Stack, device: TestDevice, data: object) => asDevice(node, device)('PUT', '/v2/device/shadow/data', { body: { data } });

  it('converts writes through B and C with a schema set through A, from the next write on; a delete through C ends it on A', async () => {
    const device = await aDevice(a);
    // B and C have read (and keep) that the device has no schema.
    await write(b, device, { tempC: 1 });
    await write(c, device, { tempC: 1 });

    expect((await a.admin('PUT', `/v2/admin/devices/${device.deviceid}/schema`, { body: SCHEMA })).status).to.equal(200);

    for (const node of [b, c]) {
      // The other nodes drop their copy when A's notice arrives (milliseconds; NOTICE_MS at most, docs/production.md).
      const readSchema = async () => (await node.admin('GET', `/v2/admin/devices/${device.deviceid}/schema`)).body;
      expect(await msUntil(readSchema, (body) => JSON.stringify(body) === JSON.stringify(SCHEMA), NOTICE_MS)).to.be.below(NOTICE_MS);
      expect(await readSchema()).to.deep.equal(SCHEMA);
      const took = await msUntil(async () => (await write(node, device, { tempC: 20 })).body.data, (d) => d.tempF === 68, NOTICE_MS);
      expect(took).to.be.below(NOTICE_MS);
    }
    expect((await c.admin('DELETE', `/v2/admin/devices/${device.deviceid}/schema`)).status).to.equal(204);
    // Unconverted, tempF keeps the 68 of the last converted write (with the schema it would be 86).
    await msUntil(async () => (await write(a, device, { tempC: 30 })).body.data, (d) => d.tempF === 68, NOTICE_MS);
    const schemaStatusOnB = async () => (await b.admin('GET', `/v2/admin/devices/${device.deviceid}/schema`)).status;
    expect(await msUntil(schemaStatusOnB, (status) => status === 404, NOTICE_MS)).to.be.below(NOTICE_MS);
  });

  it('fires a webhook trigger set through A for writes through B and C, and shows every delivery on every node', async () => {
    const device = await aDevice(a, { projectid: aProject() });
    await write(c, device, { temp: 1 });
    const hook = { type: 'WEBHOOK', config: { method: 'POST', uri: `${webhooks.url}/shadow/{{$DEVICEID}}`, body: '{{$NEW.temp}}' } };
    expect((await a.admin('PUT', `/v2/admin/projects/${device.projectid}/hooks/alert`, { body: hook })).status).to.equal(200);
    const trigger = { trigger: [{ event: 'SHADOW.UPDATED', condition: '$NEW.temp > 30', action: 'alert' }] };
    expect((await a.admin('PUT', `/v2/admin/devices/${device.deviceid}/triggers`, { body: trigger })).status).to.equal(200);
    await sleep(NOTICE_MS);
    const before = webhooks.received.length;

    await write(b, device, { temp: 31 });
    await write(c, device, { temp: 32 });

    await webhooks.waitFor(before + 2);
    await sleep(300);
    const requests = webhooks.received.filter((r) => r.url === `/shadow/${device.deviceid}`);
    expect(requests.map((r) => r.body).sort()).to.deep.equal(['31', '32']);
    for (const node of [a, b, c]) {
      const log = await eventually(
        async () => (await node.admin('GET', `/v2/admin/projects/${device.projectid}/deliveries`)).body.deliveries as { outcome: string }[],
        (d) => d.length === 2,
      );
      expect(log.map((d) => d.outcome)).to.deep.equal(['delivered', 'delivered']);
    }
  });

  it('fires a status trigger set through A for a device that connects to C', async () => {
    const device = await aDevice(a, { projectid: aProject() });
    const hook = { type: 'WEBHOOK', config: { method: 'POST', uri: `${webhooks.url}/status/{{$DEVICEID}}`, body: '{{$NEW.STATUSTEXT}}' } };
    await a.admin('PUT', `/v2/admin/projects/${device.projectid}/hooks/status`, { body: hook });
    await a.admin('PUT', `/v2/admin/devices/${device.deviceid}/triggers`, { body: { trigger: [{ event: 'DEVICE.STATUSCHANGED', action: 'status' }] } });
    const before = webhooks.received.length;

    const client = await connectDevice(c.mqttUrl, device);
    await client.endAsync();

    await webhooks.waitFor(before + 2);
    // Fired by C alone, the node the device connected to: not once per node.
    await sleep(300);
    const requests = webhooks.received.filter((r) => r.url === `/status/${device.deviceid}`);
    expect(requests.map((r) => r.body)).to.deep.equal(['online', 'offline']);
  });

  it('lets 6 of 12 writes alternating between A and B pass under a quota of 6 set through A, and every node counts 6', async () => {
    const device = await aDevice(a, { projectid: aProject() });
    await a.admin('PUT', `/v2/admin/projects/${device.projectid}/quotas`, { body: { shadowOps: 6 } });

    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await write(i % 2 === 0 ? a : b, device, { n: i })).status);

    expect(statuses).to.deep.equal([200, 200, 200, 200, 200, 200, 429, 429, 429, 429, 429, 429]);
    for (const node of [a, b, c]) {
      const used = async () => (await node.admin('GET', `/v2/admin/projects/${device.projectid}/quotas`)).body.quotas.shadowOps.used;
      await msUntil(used, (u) => u === 6, 3000);
    }
  });

  it('never lets concurrent writes through three nodes pass a project\'s quota', async () => {
    const projectid = aProject();
    const devices = await Promise.all([a, b, c].map((node) => aDevice(node, { projectid })));
    await b.admin('PUT', `/v2/admin/projects/${projectid}/quotas`, { body: { shadowOps: 40 } });
    await sleep(NOTICE_MS);

    const statuses = await Promise.all(
      Array.from({ length: 120 }, (_, i) => write([a, b, c][i % 3], devices[i % 3], { n: i }).then((res) => res.status)),
    );

    // Blocks near a limit of 40 are single writes (1/16 of what is left rounds down to 0): none is held unspent.
    expect(statuses.filter((s) => s === 200)).to.have.length(40);
    expect(statuses.filter((s) => s === 429)).to.have.length(80);
  });

  it('refuses an MQTT CONNECT on C once connects to A and B spent a messages quota set through B', async () => {
    const device = await aDevice(a, { projectid: aProject() });
    await b.admin('PUT', `/v2/admin/projects/${device.projectid}/quotas`, { body: { messages: 2 } });
    await sleep(NOTICE_MS);

    for (const node of [a, b]) await (await connectDevice(node.mqttUrl, device)).endAsync();
    const refused = await connectDevice(c.mqttUrl, device).then(
      (client) => client.endAsync(true).then(() => undefined),
      (err: Error & { code?: number }) => err,
    );

    expect(refused?.code, 'CONNACK 3').to.equal(3);
  });

  it('accepts a user token issued by A on B and C, and refuses it everywhere once B rotated the key', async () => {
    const projectid = aProject();
    await aDevice(a, { projectid });
    const token = (await a.admin('POST', '/v2/admin/tokens', { body: { projectid, ttl: 600 } })).body.token as string;
    const readWith = (node: Stack) => node.http('GET', '/v2/feed/api/v1/metricnames', { headers: { authorization: `Bearer ${token}` } });
    for (const node of [b, c]) expect((await readWith(node)).status).to.equal(200);

    expect((await b.admin('POST', '/v2/admin/tokens/key')).status).to.equal(200);

    for (const node of [a, b, c]) await msUntil(async () => (await readWith(node)).status, (s) => s === 401, NOTICE_MS);
    const fresh = (await c.admin('POST', '/v2/admin/tokens', { body: { projectid, ttl: 600 } })).body.token as string;
    expect((await a.http('GET', '/v2/feed/api/v1/metricnames', { headers: { authorization: `Bearer ${fresh}` } })).status).to.equal(200);
  });
});

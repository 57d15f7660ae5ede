import { expect } from 'chai';
import { aDevice, aGroup, TestDevice } from '../../helpers/devices';
import { startStack, Stack } from '../../helpers/stack';

const API = '/v2/feed/api/v1';
const MINUTE = 60_000;

describe('deleting history: POST /datapoints/delete and DELETE /metric/{deviceid}', () => {
  let stack: Stack;
  let alice: TestDevice;
  let bob: TestDevice;
  let readToken: string;
  let writeToken: string;
  const base = Date.now() - 60 * MINUTE;

  before(async () => {
    stack = await startStack();
    [alice, bob] = await aGroup(stack, 2);
    const issue = async (scope?: string) =>
      (await stack.admin('POST', '/v2/admin/tokens', { body: { projectid: alice.projectid, ttl: 600, ...(scope ? { scope } : {}) } })).body;
    readToken = (await issue()).token;
    const write = await issue('write');
    expect(write.scope).to.equal('write');
    writeToken = write.token;
  });
  after(() => stack.stop());

  /** Five minutes of temp and humid, one a minute, through the Device API. */
  const writeHistory = async (device: TestDevice) => {
    const res = await stack.http('PUT', '/v2/device/shadow/batch', {
      headers: { authorization: device.auth },
      body: { batch: [0, 1, 2, 3, 4].map((i) => ({ ts: base + i * MINUTE, data: { temp: 20 + i, humid: 50 + i } })) },
    });
    expect(res.status, res.text).to.equal(200);
  };
  const pointsOf = async (device: TestDevice, attr: string) => {
    const res = await stack.http('POST', `${API}/datapoints/query`, {
      headers: { authorization: `Bearer ${readToken}` },
      // Writes may be up to 24 h ahead: read past now.
      body: { start_absolute: 0, end_absolute: Date.now() + 2 * 86_400_000, metrics: [{ name: device.deviceid, tags: { attr: [attr] } }] },
    });
    expect(res.status, res.text).to.equal(200);
    return res.body.queries[0].results[0].values.map((v: number[]) => v[1]);
  };
  const deletePoints = (auth: string, body: unknown) =>
    stack.http('POST', `${API}/datapoints/delete`, { headers: { authorization: auth }, body });

  it('deletes the points a query selects (range and tags), ignoring its aggregators, and answers 204', async () => {
    await writeHistory(alice);
    const res = await deletePoints(alice.auth, {
      start_absolute: base + MINUTE, end_absolute: base + 3 * MINUTE,
      metrics: [{ name: alice.deviceid, tags: { attr: ['temp'] }, aggregators: [{ name: 'sum', sampling: { value: 1, unit: 'hours' } }] }],
    });

    expect(res.status, res.text).to.equal(204);
    expect(await pointsOf(alice, 'temp')).to.deep.equal([20, 24]);
    expect(await pointsOf(alice, 'humid')).to.deep.equal([50, 51, 52, 53, 54]);
  });

  it('leaves the shadow as it is', async () => {
    const shadow = await stack.http('GET', '/v2/device/shadow/data', { headers: { authorization: alice.auth } });
    expect(shadow.body.data).to.deep.equal({ temp: 24, humid: 54 });
  });

  it('deletes to the end of time when the query has no end (KairosDB\'s rule)', async () => {
    await writeHistory(bob);
    const ahead = await stack.http('PUT', '/v2/device/shadow/batch', {
      headers: { authorization: bob.auth }, body: { batch: [{ ts: Date.now() + 3_600_000, data: { temp: 99, humid: 99 } }] },
    });
    expect(ahead.status, ahead.text).to.equal(200);
    expect(await pointsOf(bob, 'temp')).to.deep.equal([20, 21, 22, 23, 24, 99]);

    const res = await deletePoints(`Bearer ${writeToken}`, { start_absolute: base + 2 * MINUTE, metrics: [{ name: bob.deviceid }] });

    expect(res.status, res.text).to.equal(204);
    expect(await pointsOf(bob, 'temp')).to.deep.equal([20, 21]);
    expect(await pointsOf(bob, 'humid')).to.deep.equal([50, 51]);
  });

  it('deletes a whole metric with DELETE /metric/{deviceid}: it leaves the metric names', async () => {
    const res = await stack.http('DELETE', `/feed/api/v1/metric/${bob.deviceid}`, { headers: { authorization: `Bearer ${writeToken}` } });
    const names = await stack.http('GET', `${API}/metricnames`, { headers: { authorization: `Bearer ${readToken}` } });

    expect(res.status, res.text).to.equal(204);
    expect(await pointsOf(bob, 'temp')).to.deep.equal([]);
    expect(names.body.results).to.include(alice.deviceid).and.not.include(bob.deviceid);
  });

  it('takes the admin token for any metric, even one whose device is gone', async () => {
    const carol = await aDevice(stack, { projectid: alice.projectid });
    await writeHistory(carol);
    expect((await stack.admin('DELETE', `/v2/admin/devices/${carol.deviceid}`)).status).to.equal(204);

    const res = await stack.http('DELETE', `${API}/metric/${carol.deviceid}`, { headers: { authorization: `Bearer ${stack.server.adminToken}` } });

    expect(res.status, res.text).to.equal(204);
  });

  it('answers 204 for a metric that has no points, like KairosDB', async () => {
    const res = await stack.http('DELETE', `${API}/metric/${alice.deviceid}`, { headers: { authorization: alice.auth } });
    const again = await stack.http('DELETE', `${API}/metric/${alice.deviceid}`, { headers: { authorization: alice.auth } });

    expect(res.status).to.equal(204);
    expect(again.status).to.equal(204);
  });

  describe('who may delete', () => {
    const body = (device: TestDevice) => ({ start_absolute: 0, metrics: [{ name: device.deviceid }] });

    it('refuses a device deleting a groupmate\'s history: a device deletes only its own', async () => {
      const res = await deletePoints(bob.auth, body(alice));
      const metric = await stack.http('DELETE', `${API}/metric/${alice.deviceid}`, { headers: { authorization: bob.auth } });

      expect(res.status).to.equal(403);
      expect(res.body.code).to.equal('METRIC_FORBIDDEN');
      expect(res.body.message).to.match(/only its own/);
      expect(metric.status).to.equal(403);
    });

    it('refuses a user token without the write scope', async () => {
      const res = await deletePoints(`Bearer ${readToken}`, body(alice));
      const metric = await stack.http('DELETE', `${API}/metric/${alice.deviceid}`, { headers: { authorization: `Bearer ${readToken}` } });

      expect(res.status).to.equal(403);
      expect(res.body.code).to.equal('READ_ONLY_TOKEN');
      expect(res.body.errors).to.deep.equal([res.body.message]);
      expect(metric.status).to.equal(403);
    });

    it('refuses a write token of another project, and metrics that are no device of the project', async () => {
      const other = (await stack.admin('POST', '/v2/admin/tokens', { body: { projectid: (await aDevice(stack)).projectid, ttl: 600, scope: 'write' } })).body.token;
      expect((await deletePoints(`Bearer ${other}`, body(alice))).status).to.equal(403);
      expect((await stack.http('DELETE', `${API}/metric/not-a-device`, { headers: { authorization: `Bearer ${writeToken}` } })).status).to.equal(403);
    });

    it('validates the body as a query first: 400 with KairosDB\'s messages', async () => {
      const res = await deletePoints(alice.auth, { metrics: [{ name: alice.deviceid }] });

      expect(res.status).to.equal(400);
      expect(res.body.errors).to.deep.equal(['query.metric[0].start_time relative or absolute time must be set']);
    });

    it('wants credentials', async () => {
      expect((await stack.http('POST', `${API}/datapoints/delete`, { body: body(alice) })).status).to.equal(401);
      expect((await stack.http('DELETE', `${API}/metric/${alice.deviceid}`)).status).to.equal(401);
    });
  });

  it('refuses a scope other than read or write when issuing a token', async () => {
    const res = await stack.admin('POST', '/v2/admin/tokens', { body: { projectid: alice.projectid, scope: 'admin' } });
    expect(res.status).to.equal(400);
  });
});

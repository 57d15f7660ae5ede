import { expect } from 'chai';
import { aDevice, aGroup, TestDevice } from '../../helpers/devices';
import { startStack, Stack } from '../../helpers/stack';

const QUERY = '/v2/feed/api/v1/datapoints/query';

describe('POST /v2/feed/api/v1/datapoints/query: who may read what', () => {
  let stack: Stack;
  let alice: TestDevice;
  let bob: TestDevice;
  let stranger: TestDevice;
  let userToken: string;

  before(async () => {
    stack = await startStack();
    [alice, bob] = await aGroup(stack, 2);
    stranger = await aDevice(stack, { projectid: alice.projectid });
    userToken = (await stack.admin('POST', '/v2/admin/tokens', { body: { projectid: alice.projectid, ttl: 600 } })).body.token;
    const res = await stack.http('PUT', '/v2/device/shadow/batch', {
      headers: { authorization: alice.auth },
      body: { batch: [{ data: { temp: 20 }, ts: -2000 }, { data: { temp: 22 }, ts: -1000 }] },
    });
    expect(res.status).to.equal(200);
  });
  after(() => stack.stop());

  const query = (auth: string, metric: string) =>
    stack.http('POST', QUERY, { headers: { authorization: auth }, body: { start_relative: { value: 1, unit: 'hours' }, metrics: [{ name: metric }] } });

  it('answers a user token of the project with the points of any device of the project', async () => {
    const res = await query(`Bearer ${userToken}`, alice.deviceid);
    expect(res.status).to.equal(200);
    expect(res.body.queries[0].results[0].values.map((v: number[]) => v[1])).to.deep.equal([20, 22]);
  });

  it('answers a device reading itself or a device of its group', async () => {
    expect((await query(alice.auth, alice.deviceid)).status).to.equal(200);
    const byGroupmate = await query(bob.auth, alice.deviceid);
    expect(byGroupmate.status).to.equal(200);
    expect(byGroupmate.body.queries[0].sample_size).to.equal(2);
  });

  it('refuses a device of another group with 403 and KairosDB-style errors', async () => {
    const res = await query(stranger.auth, alice.deviceid);
    expect(res.status).to.equal(403);
    expect(res.body).to.include({ status: 403, code: 'METRIC_FORBIDDEN' });
    expect(res.body.errors).to.be.an('array').with.length(1);
  });

  it('refuses a user token of another project, and metrics that are no device at all', async () => {
    const other = (await stack.admin('POST', '/v2/admin/tokens', { body: { projectid: (await aDevice(stack)).projectid, ttl: 600 } })).body.token;
    expect((await query(`Bearer ${other}`, alice.deviceid)).status).to.equal(403);
    expect((await query(`Bearer ${userToken}`, 'not-a-device')).status).to.equal(403);
  });

  it('refuses missing, forged and expired tokens with 401', async () => {
    expect((await stack.http('POST', QUERY, { body: {} })).status).to.equal(401);
    const [head, payload] = userToken.split('.');
    expect((await query(`Bearer ${head}.${payload}.AAAA`, alice.deviceid)).status).to.equal(401);
    const shortLived = (await stack.admin('POST', '/v2/admin/tokens', { body: { projectid: alice.projectid, ttl: 1 } })).body.token;
    await new Promise((r) => setTimeout(r, 2100));
    const expired = await query(`Bearer ${shortLived}`, alice.deviceid);
    expect(expired.status).to.equal(401);
    expect(expired.body.code).to.equal('INVALID_CREDENTIALS');
  });

  it('lists only the metric names, tag names and tag values the caller may read', async () => {
    const names = await stack.http('GET', '/v2/feed/api/v1/metricnames', { headers: { authorization: stranger.auth } });
    expect(names.status).to.equal(200);
    expect(names.body.results).to.not.include(alice.deviceid);
    const mine = await stack.http('GET', '/v2/feed/api/v1/metricnames', { headers: { authorization: bob.auth } });
    // Each readable device with points by its id, and by its readable name (docs/data-store.md "Devices by name").
    expect(mine.body.results).to.have.members([alice.deviceid, `${alice.groupid}/${alice.alias}`]).and.have.length(2);
    const tagnames = await stack.http('GET', '/feed/api/v1/tagnames', { headers: { authorization: `Bearer ${userToken}` } });
    expect(tagnames.body.results).to.deep.equal(['attr']);
    const tagvalues = await stack.http('GET', '/feed/api/v1/tagvalues', { headers: { authorization: stranger.auth } });
    expect(tagvalues.body.results).to.deep.equal([]);
  });

  it('tells its version without credentials', async () => {
    const res = await stack.http('GET', '/v2/feed/api/v1/version');
    expect(res.status).to.equal(200);
    expect(res.body.version).to.match(/openpie/);
  });
});

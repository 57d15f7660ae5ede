import { expect } from 'chai';
import { aDevice, TestDevice } from '../../helpers/devices';
import { startStack, Stack } from '../../helpers/stack';

const QUERY = '/v2/feed/api/v1/datapoints/query';
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('data-store credentials as tools send them, and deletes named by alias', () => {
  let stack: Stack;
  let lamp: TestDevice;
  let userToken: string;

  before(async () => {
    stack = await startStack();
    lamp = await aDevice(stack, { alias: 'lamp' });
    userToken = (await stack.admin('POST', '/v2/admin/tokens', { body: { projectid: lamp.projectid, ttl: 600 } })).body.token;
    const res = await stack.http('PUT', '/v2/device/shadow/data', { headers: { authorization: lamp.auth }, body: { data: { level: 3 } } });
    expect(res.status).to.equal(200);
  });
  after(() => stack.stop());

  const query = (auth: string, metric = lamp.deviceid) =>
    stack.http('POST', QUERY, { headers: { authorization: auth }, body: { start_relative: { value: 1, unit: 'hours' }, metrics: [{ name: metric }] } });

  it('takes Basic with ClientID and token, Basic with any username and a user token, and the admin token', async () => {
    for (const auth of [basic(lamp.deviceid, lamp.token), basic('grafana', userToken), `Bearer ${stack.server.adminToken}`]) {
      const res = await query(auth);
      expect(res.status, `${auth}: ${res.text}`).to.equal(200);
      expect(res.body.queries[0].sample_size).to.equal(1);
    }
  });

  it('refuses Basic with a wrong token or a forged user token', async () => {
    expect((await query(basic(lamp.deviceid, 'wrong'))).status).to.equal(401);
    const [head, payload] = userToken.split('.');
    expect((await query(basic('grafana', `${head}.${payload}.AAAA`))).status).to.equal(401);
  });

  it('tells a caller who deletes a metric named by the device\'s alias to use its device id', async () => {
    const writer = (await stack.admin('POST', '/v2/admin/tokens', { body: { projectid: lamp.projectid, ttl: 600, scope: 'write' } })).body.token;
    const res = await stack.http('DELETE', '/v2/feed/api/v1/metric/lamp', { headers: { authorization: `Bearer ${writer}` } });

    expect(res.status).to.equal(403);
    expect(res.body.code).to.equal('METRIC_FORBIDDEN');
    expect(res.body.message).to.equal(
      `metric "lamp" is a device alias, not a device id: metrics are named by the device id (ClientID); use "${lamp.deviceid}"`,
    );
    expect(res.body.errors).to.deep.equal([res.body.message]);
  });

  it('does not reveal the id of an alias outside the caller\'s scope', async () => {
    const stranger = await aDevice(stack, { projectid: lamp.projectid });
    const res = await query(stranger.auth, 'lamp');

    expect(res.status).to.equal(403);
    expect(res.body.message).to.not.contain(lamp.deviceid);
  });
});

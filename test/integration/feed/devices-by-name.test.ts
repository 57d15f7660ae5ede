import { expect } from 'chai';
import { aDevice, TestDevice } from '../../helpers/devices';
import { startStack, Stack } from '../../helpers/stack';

const FEED = '/v2/feed/api/v1';

/** Readable metric names (docs/data-store.md "Devices by name"): `<groupid>/<alias>`, or a bare alias unique in scope. */
describe('data-store queries naming devices by their alias', () => {
  let stack: Stack;
  let kitchenLamp: TestDevice;
  let kitchenSwitch: TestDevice;
  let garageLamp: TestDevice;
  let sensor: TestDevice;
  let userToken: string;

  const write = async (device: TestDevice, data: object) => {
    const res = await stack.http('PUT', '/v2/device/shadow/data', { headers: { authorization: device.auth }, body: { data } });
    expect(res.status, res.text).to.equal(200);
  };
  const query = (auth: string, ...names: string[]) =>
    stack.http('POST', `${FEED}/datapoints/query`, {
      headers: { authorization: auth },
      body: { start_relative: { value: 1, unit: 'hours' }, metrics: names.map((name) => ({ name })) },
    });
  const valuesOf = (result: { values: number[][] }) => result.values.map((v) => v[1]);

  before(async () => {
    stack = await startStack();
    kitchenLamp = await aDevice(stack, { alias: 'lamp', groupid: 'kitchen' });
    const projectid = kitchenLamp.projectid;
    kitchenSwitch = await aDevice(stack, { alias: 'switch', groupid: 'kitchen', projectid });
    garageLamp = await aDevice(stack, { alias: 'lamp', groupid: 'garage', projectid });
    // An alias that reads as another device's id: a UUID-form name is always an id.
    sensor = await aDevice(stack, { alias: kitchenLamp.deviceid, groupid: 'garage', projectid });
    await write(kitchenLamp, { level: 1 });
    await write(garageLamp, { level: 2 });
    await write(kitchenSwitch, { on: 5 });
    await write(sensor, { level: 9 });
    userToken = (await stack.admin('POST', '/v2/admin/tokens', { body: { projectid, ttl: 600 } })).body.token;
  });
  after(() => stack.stop());

  it('answers `<groupid>/<alias>` with that device\'s points, under the name the query used', async () => {
    const res = await query(`Bearer ${userToken}`, 'kitchen/lamp', 'garage/lamp');

    expect(res.status, res.text).to.equal(200);
    expect(res.body.queries[0].results[0].name).to.equal('kitchen/lamp');
    expect(valuesOf(res.body.queries[0].results[0])).to.deep.equal([1]);
    expect(res.body.queries[1].results[0].name).to.equal('garage/lamp');
    expect(valuesOf(res.body.queries[1].results[0])).to.deep.equal([2]);
  });

  it('answers a bare alias that only one device the caller may read has, as its id would be answered', async () => {
    const byName = await query(`Bearer ${userToken}`, 'switch');
    const byId = await query(`Bearer ${userToken}`, kitchenSwitch.deviceid);

    expect(byName.status, byName.text).to.equal(200);
    expect(byName.body.queries[0].results[0].name).to.equal('switch');
    expect(byName.body.queries[0].results[0].values).to.deep.equal(byId.body.queries[0].results[0].values);
    expect(byName.body.queries[0].results[0].tags).to.deep.equal(byId.body.queries[0].results[0].tags);
  });

  it('refuses a bare alias two groups share with 400 METRIC_AMBIGUOUS naming both readable names', async () => {
    const res = await query(`Bearer ${userToken}`, 'lamp');

    expect(res.status).to.equal(400);
    expect(res.body.code).to.equal('METRIC_AMBIGUOUS');
    expect(res.body.message).to.contain('"kitchen/lamp"').and.contain('"garage/lamp"');
  });

  it('resolves a device\'s bare alias within its own group only, and never reveals a device of another group', async () => {
    const mine = await query(kitchenSwitch.auth, 'lamp');
    expect(mine.status, mine.text).to.equal(200);
    expect(valuesOf(mine.body.queries[0].results[0])).to.deep.equal([1]);

    const other = await query(kitchenSwitch.auth, 'garage/lamp');
    expect(other.status).to.equal(403);
    expect(other.body.code).to.equal('METRIC_FORBIDDEN');
    expect(other.body.message).to.not.contain(garageLamp.deviceid);
  });

  it('reads a UUID-form name as a device id, never as an alias', async () => {
    const res = await query(`Bearer ${userToken}`, kitchenLamp.deviceid);

    expect(res.status).to.equal(200);
    expect(res.body.queries[0].results[0].name).to.equal(kitchenLamp.deviceid);
    expect(valuesOf(res.body.queries[0].results[0])).to.deep.equal([1]);
  });

  it('names the devices of a tags query as the query did', async () => {
    const res = await stack.http('POST', `${FEED}/datapoints/query/tags`, {
      headers: { authorization: `Bearer ${userToken}` },
      body: { start_relative: { value: 1, unit: 'hours' }, metrics: [{ name: 'kitchen/switch' }] },
    });

    expect(res.status, res.text).to.equal(200);
    expect(res.body.queries[0].results[0]).to.deep.include({ name: 'kitchen/switch', tags: { attr: ['on'] } });
  });

  it('lists each readable device with points by id and by `<groupid>/<alias>`, and filters both by prefix', async () => {
    const all = await stack.http('GET', `${FEED}/metricnames`, { headers: { authorization: kitchenSwitch.auth } });
    expect(all.body.results).to.have.members([kitchenLamp.deviceid, kitchenSwitch.deviceid, 'kitchen/lamp', 'kitchen/switch']);

    const kitchen = await stack.http('GET', `${FEED}/metricnames?prefix=kitchen/`, { headers: { authorization: `Bearer ${userToken}` } });
    expect(kitchen.body.results).to.deep.equal(['kitchen/lamp', 'kitchen/switch']);
  });

  it('lists ids only to the admin token, which has no project to name devices in', async () => {
    const res = await stack.http('GET', `${FEED}/metricnames`, { headers: { authorization: `Bearer ${stack.server.adminToken}` } });

    expect(res.body.results).to.include(kitchenLamp.deviceid);
    expect(res.body.results.filter((name: string) => name.includes('/'))).to.deep.equal([]);
  });
});

import { expect } from 'chai';
import { aDevice } from '../../helpers/devices';
import { coapAs } from '../../helpers/coap';
import { shadowSession, UPDATE, UPDATED } from '../../helpers/mqtt-shadow';
import { asDevice, expectError } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';
import { adminQuery, aFleet, eventually, idsOf } from './fleet-helpers';

/** The battery of every device of the project the fleet query answers, by deviceid. */
async function batteries(stack: Stack, projectid: string): Promise<Record<string, unknown>> {
  const res = await adminQuery(stack, projectid, { fields: ['battery'], limit: 100 });
  expect(res.status, res.text).to.equal(200);
  return Object.fromEntries(res.body.items.map((item: { deviceid: string; data: { battery?: unknown } }) => [item.deviceid, item.data.battery]));
}

describe('the fleet index follows writes', () => {
  let stack: Stack;
  before(async function () {
    // A keyspace of its own with TEST_STORE=cassandra takes a while to make on a busy machine.
    this.timeout(90_000);
    stack = await startStack();
  });
  after(() => stack.stop());

  it('of REST, MQTT and CoAP, made after the project was first queried', async () => {
    const [rest, mqtt, coap] = await aFleet(stack, [{ data: { battery: 1 } }, { data: { battery: 2 } }, { data: { battery: 3 } }]);
    expect(await batteries(stack, rest.projectid)).to.deep.equal({ [rest.deviceid]: 1, [mqtt.deviceid]: 2, [coap.deviceid]: 3 });

    expect((await asDevice(stack, rest)('PUT', '/v2/device/shadow/data', { body: { data: { battery: 11 } } })).status).to.equal(200);
    const session = await shadowSession(stack, mqtt);
    try {
      await session.ask(UPDATE, { data: { battery: 22 } }, UPDATED);
    } finally {
      await session.end();
    }
    expect((await coapAs(stack.coapUrl, coap)('PUT', '/shadow/data', { payload: { data: { battery: 33 } } })).code).to.equal('2.04');

    await eventually(async () => {
      expect(await batteries(stack, rest.projectid)).to.deep.equal({ [rest.deviceid]: 11, [mqtt.deviceid]: 22, [coap.deviceid]: 33 });
    });
  });

  it('of the registry: a device moved to another group, a device deleted, a new device once its shadow is written', async () => {
    const [moved, deleted] = await aFleet(stack, [{ groupid: 'g1', data: { battery: 1 } }, { groupid: 'g1', data: { battery: 2 } }]);
    const { projectid } = moved;
    expect(idsOf(await adminQuery(stack, projectid, { groupid: 'g1' }))).to.have.length(2);

    const added = await aDevice(stack, { projectid, groupid: 'g1' });
    expect((await stack.admin('PATCH', `/v2/admin/devices/${moved.deviceid}`, { body: { groupid: 'g2' } })).status).to.equal(200);
    expect((await stack.admin('DELETE', `/v2/admin/devices/${deleted.deviceid}`)).status).to.equal(204);

    await eventually(async () => {
      expect(idsOf(await adminQuery(stack, projectid, { groupid: 'g1' }))).to.deep.equal([]);
      expect(idsOf(await adminQuery(stack, projectid, { groupid: 'g2' }))).to.deep.equal([moved.deviceid]);
    });
    expect((await asDevice(stack, added)('PUT', '/v2/device/shadow/data', { body: { data: { battery: 9 } } })).status).to.equal(200);

    await eventually(async () => {
      expect(idsOf(await adminQuery(stack, projectid, { groupid: 'g1' }))).to.deep.equal([added.deviceid]);
      expect(idsOf(await adminQuery(stack, projectid, {})).sort()).to.deep.equal([added.deviceid, moved.deviceid].sort());
    });
  });
});

describe('fleet query budgets', () => {
  let stack: Stack;
  before(async function () {
    this.timeout(90_000);
    stack = await startStack({
      env: { FLEET_QUERY_MAX_DEVICES: '3' },
    });
  });
  after(() => stack.stop());

  it('refuses a query that would scan more devices than FLEET_QUERY_MAX_DEVICES with 413, and takes it narrowed to a group', async () => {
    const fleet = await aFleet(stack, [
      { groupid: 'g1', data: { battery: 1 } }, { groupid: 'g1', data: { battery: 2 } },
      { groupid: 'g2', data: { battery: 3 } }, { groupid: 'g2', data: { battery: 4 } },
    ]);

    const refused = await adminQuery(stack, fleet[0].projectid, {});
    const narrowed = await adminQuery(stack, fleet[0].projectid, { groupid: 'g2' });

    expectError(refused, 413, 'QUERY_TOO_LARGE');
    expect(refused.body).to.include({ budget: 'FLEET_QUERY_MAX_DEVICES', limit: 3 });
    expect(idsOf(narrowed)).to.have.length(2);
  });
});

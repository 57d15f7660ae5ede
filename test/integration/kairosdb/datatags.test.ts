import { expect } from 'chai';
import { aDevice, TestDevice } from '../../helpers/devices';
import { deleteMetrics, kairosDbUrlOrSkip, pollUntil } from '../../helpers/kairosdb';
import { asDevice } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

type Series = { tags: { attr: string[] }; values: [number, number][] };

/** Datatags (issue 23 §1) and schema store.ttl (§2) with TIMESERIES=kairosdb: recorded, cast, named, expired and cleared in KairosDB. */
describe('TIMESERIES=kairosdb: datatags and store.ttl over the real KairosDB', function () {
  this.timeout(90_000);
  let url: string;
  let stack: Stack;
  const devices: TestDevice[] = [];

  before(async function () {
    url = await kairosDbUrlOrSkip(this);
    stack = await startStack({ env: { TIMESERIES: 'kairosdb', KAIROSDB_URL: url } });
  });
  after(async () => {
    if (url === undefined) return;
    await stack.stop();
    await deleteMetrics(url, devices.map((d) => d.deviceid));
  });

  async function aTaggedDevice(): Promise<TestDevice> {
    const device = await aDevice(stack);
    devices.push(device);
    const res = await stack.admin('PUT', `/v2/admin/devices/${device.deviceid}/datatags`, {
      body: [{ path: 'env.temp', type: 'number', attr: 'temp', ttl: '30d' }, { path: 'door', type: 'boolean', attr: 'door', ttl: '30d' }],
    });
    expect(res.status, res.text).to.equal(200);
    return device;
  }

  /** Each attr's values, once KairosDB answers what `done` waits for (its writes become readable after about a second). */
  async function valuesOf(device: TestDevice, done: (byAttr: Record<string, number[]>) => boolean): Promise<Record<string, number[]>> {
    const read = async () => {
      const res = await stack.http('POST', '/v2/feed/api/v1/datapoints/query', {
        headers: { authorization: device.auth },
        body: { start_relative: { value: 1, unit: 'days' }, metrics: [{ name: device.deviceid, group_by: [{ name: 'tag', tags: ['attr'] }] }] },
      });
      expect(res.status, res.text).to.equal(200);
      return Object.fromEntries(res.body.queries[0].results.filter((r: Series) => r.values.length > 0).map((r: Series) => [r.tags.attr[0], r.values.map((v) => v[1])]));
    };
    return pollUntil(read, done);
  }
  const write = (device: TestDevice, data: object, timestamp?: number) =>
    asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data, ...(timestamp === undefined ? {} : { timestamp }) } });

  it('records exactly the enabled tags, cast, under their attr; a disabled tag records nothing', async () => {
    const device = await aTaggedDevice();
    await stack.admin('PATCH', `/v2/admin/devices/${device.deviceid}/datatags/door`, { body: { enabled: false } });

    await write(device, { env: { temp: '21.5', humid: 3 }, door: true, n: 1 });

    expect(await valuesOf(device, (v) => 'temp' in v)).to.deep.equal({ temp: [21.5] });
  });

  it('clears one tag\'s feed, edits and deletes single points', async () => {
    const device = await aTaggedDevice();
    const now = Date.now();
    await write(device, { env: { temp: 1 }, door: 0 }, now - 3000);
    await write(device, { env: { temp: 2 } }, now - 2000);
    await valuesOf(device, (v) => v.temp?.length === 2 && v.door?.length === 1);

    await stack.admin('POST', `/v2/admin/devices/${device.deviceid}/datatags/door/clear`);
    await stack.admin('PUT', `/v2/admin/devices/${device.deviceid}/datatags/temp/points/${now - 3000}`, { body: { value: '10' } });
    await stack.admin('DELETE', `/v2/admin/devices/${device.deviceid}/datatags/temp/points/${now - 2000}`);

    expect(await valuesOf(device, (v) => !('door' in v) && v.temp?.length === 1 && v.temp[0] === 10)).to.deep.equal({ temp: [10] });
  });

  it('records exactly a schema\'s store.ttl fields; one whose ttl has passed already is not kept', async () => {
    const device = await aDevice(stack);
    devices.push(device);
    await stack.admin('PUT', `/v2/admin/devices/${device.deviceid}/schema`, {
      body: { properties: { temp: { operation: { store: { ttl: '30d' } } }, brief: { operation: { store: { ttl: '1m' } } } } },
    });

    // KairosDB counts a ttl in whole seconds from its own write and shows points about a second later: a ttl of a
    // minute outlives that, and a point two minutes old has passed it already.
    await write(device, { temp: 20, brief: 1, humid: 50 }, Date.now() - 120_000);
    await write(device, { brief: 2 });

    expect(await valuesOf(device, (v) => 'temp' in v && 'brief' in v)).to.deep.equal({ temp: [20], brief: [2] });
  });
});

import { expect } from 'chai';
import { aDevice, aGroup } from '../../helpers/devices';
import { asDevice } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

describe('a restart of the service on the same data dir', () => {
  let first: Stack | undefined;
  let second: Stack | undefined;
  afterEach(async () => {
    // Both stacks share one data dir: close the first without deleting it, then let the last one remove it.
    await first?.stop({ keepData: true });
    await (second ?? first)?.stop();
    first = second = undefined;
  });

  async function restart(): Promise<Stack> {
    await first!.stop({ keepData: true });
    second = await startStack({ dataDir: first!.dataDir });
    return second;
  }

  it('keeps devices with their tokens and every admin change', async () => {
    first = await startStack();
    const device = await aDevice(first, { livenessttl: 5 });
    const rotated = (await first.admin('POST', `/v2/admin/devices/${device.deviceid}/token`)).body;
    const patched = (await first.admin('PATCH', `/v2/admin/devices/${device.deviceid}`, { body: { description: 'kept' } })).body;

    const after = await restart();

    expect((await after.admin('GET', `/v2/admin/devices/${device.deviceid}`)).body).to.deep.equal(patched);
    const status = await after.http('GET', '/v2/device/status', { headers: { authorization: `Device ${device.deviceid}:${rotated.token}` } });
    expect(status.status).to.equal(200);
    expect(status.body.deviceid).to.equal(device.deviceid);
    expect((await after.http('GET', '/v2/device/status', { headers: { authorization: device.auth } })).status).to.equal(401);
  });

  it('keeps shadows with their data, rev and times, and goes on counting rev from there', async () => {
    first = await startStack();
    const [device, mate] = await aGroup(first, 2);
    const client = asDevice(first, device);
    await client('PUT', '/v2/device/shadow/data', { body: { data: { a: 1, o: { x: 1 } } } });
    await asDevice(first, mate)('PUT', `/v2/device/shadow/batch?alias=${device.alias}`, { body: { batch: [{ data: { b: 2 }, ts: 0 }] } });
    const saved = (await client('GET', '/v2/device/shadow/data')).body;

    const after = await restart();

    const read = await asDevice(after, device)('GET', '/v2/device/shadow/data');
    expect(read.body).to.deep.equal(saved);
    expect(read.body).to.include({ rev: 2 });
    const next = await asDevice(after, device)('PUT', '/v2/device/shadow/data', { body: { data: { o: { y: 2 } } } });
    expect(next.body).to.include({ rev: 3 });
    expect(next.body.data).to.deep.equal({ a: 1, o: { x: 1, y: 2 }, b: 2 });
  });

  it('forgets deleted devices for good', async () => {
    first = await startStack();
    const device = await aDevice(first);
    await first.admin('DELETE', `/v2/admin/devices/${device.deviceid}`);

    const after = await restart();

    expect((await after.admin('GET', `/v2/admin/devices/${device.deviceid}`)).status).to.equal(404);
    expect((await asDevice(after, device)('GET', '/v2/device/status')).status).to.equal(401);
  });
});

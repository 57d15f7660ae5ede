import { expect } from 'chai';
import { aDevice } from '../../helpers/devices';
import { connectDevice, endAll, sleep } from '../../helpers/mqtt';
import { asDevice } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

describe('GET /v2/device/status', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  /** Reads the connection state until it equals `want` or `ms` pass; the broker notices a disconnect a bit later. */
  async function statusBecomes(client: ReturnType<typeof asDevice>, want: 0 | 1, ms = 3000): Promise<number> {
    const deadline = Date.now() + ms;
    for (;;) {
      const { body } = await client('GET', '/v2/device/status');
      if (body.status === want || Date.now() > deadline) return body.status;
      await sleep(50);
    }
  }

  it('describes the calling device, with status as the connection state rather than the HTTP code', async () => {
    const device = await aDevice(stack);

    const res = await asDevice(stack, device)('GET', '/v2/device/status');

    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      deviceid: device.deviceid,
      alias: device.alias,
      groupid: device.groupid,
      projectid: device.projectid,
      status: 0,
      enabled: true,
      banned: false,
    });
  });

  it('reports 0 for a device without an MQTT connection and without a liveness TTL, however often it calls', async () => {
    const device = await aDevice(stack);
    const client = asDevice(stack, device);
    await client('PUT', '/v2/device/shadow/data', { body: { data: { a: 1 } } });

    const res = await client('GET', '/v2/device/status');

    expect(res.body.status).to.equal(0);
  });

  it('reports 1 while the device has an MQTT connection and 0 again after it closes', async () => {
    const device = await aDevice(stack);
    const client = asDevice(stack, device);
    const mqtt = await connectDevice(stack.mqttUrl, device);
    try {
      expect(await statusBecomes(client, 1)).to.equal(1);
    } finally {
      await endAll(mqtt);
    }

    expect(await statusBecomes(client, 0)).to.equal(0);
  });

  it('counts a REST call as being online when the device has a liveness TTL', async () => {
    const device = await aDevice(stack, { livenessttl: 1 });

    const res = await asDevice(stack, device)('GET', '/v2/device/status');

    expect(res.body.status).to.equal(1);
  });

  it('falls back to offline once the liveness TTL has passed since the last REST call', async () => {
    const device = await aDevice(stack, { livenessttl: 1 });
    await asDevice(stack, device)('GET', '/v2/device/status');
    const adminView = async () => (await stack.admin('GET', `/v2/admin/devices/${device.deviceid}`)).body.status;
    expect(await adminView()).to.equal(1);

    await sleep(1100);

    expect(await adminView()).to.equal(0);
  });

  it('stops counting REST calls once the liveness TTL is set back to 0', async () => {
    const device = await aDevice(stack, { livenessttl: 60 });
    const client = asDevice(stack, device);
    expect((await client('GET', '/v2/device/status')).body.status).to.equal(1);

    await stack.admin('PATCH', `/v2/admin/devices/${device.deviceid}`, { body: { livenessttl: 0 } });

    expect((await client('GET', '/v2/device/status')).body.status).to.equal(0);
  });

  it('reports the current alias, group and project after an admin change', async () => {
    const device = await aDevice(stack);
    await stack.admin('PATCH', `/v2/admin/devices/${device.deviceid}`, { body: { alias: 'renamed', groupid: 'moved' } });

    const res = await asDevice(stack, device)('GET', '/v2/device/status');

    expect(res.body).to.include({ alias: 'renamed', groupid: 'moved', projectid: device.projectid });
  });
});

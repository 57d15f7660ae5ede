import { expect } from 'chai';
import { aDevice, TestDevice } from '../../helpers/devices';
import { asDevice, expectError } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';
import { connectDevice, endAll } from '../../helpers/mqtt';

/**
 * Every call reads its device from a cache (src/devices/device-cache.ts); an admin change must still count from the
 * very next call on the node that made it, never after some delay.
 */
describe('admin changes and the device cache: the next call on the same node sees them', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  /** A device whose record the node has just read (and so keeps), through a REST call and an MQTT connect. */
  async function aCachedDevice(): Promise<TestDevice> {
    const device = await aDevice(stack);
    expect((await asDevice(stack, device)('GET', '/v2/device/status')).status).to.equal(200);
    await endAll(await connectDevice(stack.mqttUrl, device));
    return device;
  }

  const patch = (device: TestDevice, body: object) => stack.admin('PATCH', `/v2/admin/devices/${device.deviceid}`, { body });

  it('refuses the old token right after a rotation, and takes the new one', async () => {
    const device = await aCachedDevice();

    const rotated = await stack.admin('POST', `/v2/admin/devices/${device.deviceid}/token`);

    expect(rotated.status).to.equal(200);
    expectError(await asDevice(stack, device)('GET', '/v2/device/status'), 401, 'INVALID_CREDENTIALS');
    const renewed = { ...device, auth: `Device ${device.deviceid}:${rotated.body.token}` };
    expect((await asDevice(stack, renewed)('GET', '/v2/device/status')).status).to.equal(200);
  });

  it('refuses a device right after it is disabled, banned or deleted, and takes it back once enabled', async () => {
    const disabled = await aCachedDevice();
    expect((await patch(disabled, { enabled: false })).status).to.equal(200);
    expectError(await asDevice(stack, disabled)('GET', '/v2/device/status'), 403, 'DEVICE_DISABLED');
    expect((await patch(disabled, { enabled: true })).status).to.equal(200);
    expect((await asDevice(stack, disabled)('GET', '/v2/device/status')).status).to.equal(200);

    const banned = await aCachedDevice();
    expect((await patch(banned, { banned: true })).status).to.equal(200);
    expectError(await asDevice(stack, banned)('GET', '/v2/device/status'), 403, 'DEVICE_BANNED');

    const deleted = await aCachedDevice();
    expect((await stack.admin('DELETE', `/v2/admin/devices/${deleted.deviceid}`)).status).to.equal(204);
    expectError(await asDevice(stack, deleted)('GET', '/v2/device/status'), 401, 'INVALID_CREDENTIALS');
  });

  it('answers with the new alias and group right after a change', async () => {
    const device = await aCachedDevice();

    expect((await patch(device, { alias: 'renamed', groupid: 'moved' })).status).to.equal(200);

    const res = await asDevice(stack, device)('GET', '/v2/device/status');
    expect(res.body).to.include({ alias: 'renamed', groupid: 'moved' });
  });

  it('refuses an MQTT connect with the old token right after a rotation', async () => {
    const device = await aCachedDevice();

    expect((await stack.admin('POST', `/v2/admin/devices/${device.deviceid}/token`)).status).to.equal(200);

    const refused = await connectDevice(stack.mqttUrl, device).then(
      async (client) => {
        await endAll(client);
        return false;
      },
      () => true,
    );
    expect(refused, 'connect with the old token refused').to.equal(true);
  });
});

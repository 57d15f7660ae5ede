import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { aDevice } from '../../helpers/devices';
import { connectDevice, endAll } from '../../helpers/mqtt';
import { startStack, Stack } from '../../helpers/stack';

const run = promisify(execFile);
const CLI = join(__dirname, '../../../src/cli/main.ts');

describe('openpie CLI: devices connections, devices kick', function () {
  this.timeout(30_000);
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  const json = async (...args: string[]) =>
    JSON.parse(
      (await run(process.execPath, ['--import', 'tsx', CLI, ...args], { env: { ...process.env, OPENPIE_URL: stack.baseUrl, ADMIN_TOKEN: stack.server.adminToken } }))
        .stdout,
    );

  it('prints a device\'s connections, kicks it with a reason, and prints the kick in its history', async () => {
    const device = await aDevice(stack);
    const client = await connectDevice(stack.mqttUrl, device);
    const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    try {
      const before = await json('devices', 'connections', device.deviceid);
      expect(before.connections).to.have.length(1);
      expect(before.connections[0]).to.include({ transport: 'tcp' });

      expect(await json('devices', 'kick', device.deviceid, '--reason', 'from the cli')).to.deep.equal({
        deviceid: device.deviceid,
        reason: 'kicked by an operator: from the cli',
      });
      await closed;

      const after = await json('devices', 'connections', device.deviceid);
      expect(after.history.map((e: { kind: string }) => e.kind)).to.include('kicked');
    } finally {
      await endAll(client);
    }
  });
});

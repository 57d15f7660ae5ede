import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { aGroup, TestDevice } from '../../helpers/devices';
import { connectDevice, endAll, nextMessage } from '../../helpers/mqtt';
import { startStack, Stack } from '../../helpers/stack';

/**
 * coap-cli 0.5.1, the version NETPIE's docs use (netpie reference §4). Later versions drop the query from the URL
 * (0.7.1 hands a WHATWG URL to a node-coap that reads `url.query`), so `?auth=` never reaches the server.
 */
const COAP_CLI = join(dirname(require.resolve('coap-cli/package.json')), 'index.js');

interface CliRun {
  stdout: string;
  /** coap-cli prints the response code here, e.g. `(2.05)`, between terminal colour codes. */
  stderr: string;
}

function coapCli(args: string[]): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [COAP_CLI, ...args], { timeout: 10_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`coap-cli failed: ${err.message}\n${stderr}`)) : resolve({ stdout, stderr }),
    );
  });
}

describe('coap-cli against the service', () => {
  let stack: Stack;
  let device: TestDevice;
  let peer: TestDevice;
  before(async () => {
    stack = await startStack();
    [device, peer] = await aGroup(stack, 2);
  });
  after(() => stack.stop());

  const url = (path: string, d = device) => `${stack.coapUrl}${path}?auth=${d.deviceid}:${d.token}`;

  it('writes the shadow with NETPIE\'s own example: coap put -p "{data:{temp:30.4}}"', async () => {
    const run = await coapCli(['put', '-p', '{data:{temp:30.4}}', url('/shadow/data')]);

    expect(run.stderr).to.contain('(2.04)');
    const body = JSON.parse(run.stdout);
    expect(body).to.deep.include({ deviceid: device.deviceid, data: { temp: 30.4 }, applied: true });
  });

  it('reads it back with coap get', async () => {
    await coapCli(['put', '-p', '{data:{humid:76.2}}', url('/shadow/data')]);

    const run = await coapCli(['get', url('/shadow/data')]);

    expect(run.stderr).to.contain('(2.05)');
    const body = JSON.parse(run.stdout);
    expect(Object.keys(body)).to.deep.equal(['deviceid', 'data', 'rev', 'modified', 'timestamp']);
    expect(body.data).to.deep.equal({ temp: 30.4, humid: 76.2 });
  });

  it('publishes a message with coap put to an MQTT subscriber of the group', async () => {
    const mqtt = await connectDevice(stack.mqttUrl, peer);
    try {
      await mqtt.subscribeAsync('@msg/home/lamp');
      const arrived = nextMessage(mqtt);

      const run = await coapCli(['put', '-p', 'ON', url('/message/home/lamp')]);

      expect(run.stderr).to.contain('(2.04)');
      expect(await arrived).to.deep.equal({ topic: '@msg/home/lamp', payload: 'ON' });
    } finally {
      await endAll(mqtt);
    }
  });

  it('sends a batch with coap put', async () => {
    const payload = '{ackid:7,batch:[{data:{temp:20},ts:-1000},{data:{temp:21},ts:0}]}';

    const run = await coapCli(['put', '-p', payload, url('/shadow/batch')]);

    expect(run.stderr).to.contain('(2.04)');
    const body = JSON.parse(run.stdout);
    expect(body.deviceid).to.equal(device.deviceid);
    expect(body.response).to.include({ ackid: 7, total: 2 });
  });

  it('shows the error code and body for a wrong token', async () => {
    const run = await coapCli(['get', `${stack.coapUrl}/shadow/data?auth=${device.deviceid}:wrong`]);

    expect(run.stderr).to.contain('(4.01)');
    expect(JSON.parse(run.stdout)).to.include({ status: 401, code: 'INVALID_CREDENTIALS' });
  });
});

import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpClient, HttpClient } from '../../helpers/http';
import { MainProcess, startMainProcess } from '../../helpers/main-process';

const ADMIN_TOKEN = 'demo-stream-admin-token-0123456789';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The demo sensor is a real MQTT client of the service's own broker (issue 13 §2, §3): online while it sends, it
 * reconnects when cut off and, like a device with a buffer, fills the gap it missed; after a restart it fills the
 * time the service was down.
 */
describe('DEMO=true: the demo sensor\'s stream', function () {
  this.timeout(120_000);
  let dataDir: string;
  let run: MainProcess | undefined;

  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'openpie-demo-stream-'));
  });
  afterEach(async () => {
    if (run && run.child.exitCode === null) {
      run.child.kill('SIGTERM');
      await run.exited;
    }
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  const start = async () => {
    run = startMainProcess({ DATA_DIR: dataDir, PORT: '0', MQTT_PORT: '0', COAP_PORT: '0', ADMIN_TOKEN, DEMO: 'true' });
    const [block] = await run.waitFor(/openpie demo:[\s\S]*?\n={20,}\n/, 30_000);
    const baseUrl = /Trial explorer: (\S+)\/trial/.exec(block)![1];
    return { block, baseUrl, admin: httpClient(baseUrl, { authorization: `Bearer ${ADMIN_TOKEN}` }) };
  };
  const sensorOf = async (admin: HttpClient) =>
    (await admin('GET', '/v2/admin/devices?projectid=demo')).body.devices.find((d: { alias: string }) => d.alias === 'demo-sensor');
  const waitForStatus = async (admin: HttpClient, status: 0 | 1, ms = 15_000) => {
    const until = Date.now() + ms;
    while ((await sensorOf(admin)).status !== status) {
      if (Date.now() > until) throw new Error(`demo-sensor never had status ${status}`);
      await sleep(250);
    }
  };
  const pointsBetween = async (admin: HttpClient, deviceid: string, start: number, end: number): Promise<number[]> => {
    const res = await admin('POST', '/v2/feed/api/v1/datapoints/query', {
      body: { start_absolute: start, end_absolute: end, metrics: [{ name: deviceid, tags: { attr: ['temp'] } }] },
    });
    expect(res.status, res.text).to.equal(200);
    return res.body.queries[0].results[0].values.map((v: number[]) => v[0]);
  };

  it('prints the console\'s address and how to log in', async () => {
    const { block, baseUrl } = await start();

    expect(block).to.contain(`Web console: ${baseUrl}/console`);
    expect(block).to.contain('log in with the admin token: the ADMIN_TOKEN you set');
  });

  it('is online while it sends, over its own MQTT connection', async () => {
    const { admin } = await start();

    await waitForStatus(admin, 1);
  });

  it('reconnects after being cut off and fills the gap it missed', async () => {
    const { admin } = await start();
    await waitForStatus(admin, 1);
    const sensor = await sensorOf(admin);
    const cut = Date.now();

    expect((await admin('PATCH', `/v2/admin/devices/${sensor.deviceid}`, { body: { enabled: false } })).status).to.equal(200);
    await waitForStatus(admin, 0);
    await sleep(16_000);
    const restored = Date.now();
    expect((await admin('PATCH', `/v2/admin/devices/${sensor.deviceid}`, { body: { enabled: true } })).status).to.equal(200);
    await waitForStatus(admin, 1);
    await sleep(2_000);

    // One reading every 5 s while it was away: at least two of them in the 12 s or more between cut + 3 s and
    // restored - 1 s, whatever the phase of its clock.
    expect((await pointsBetween(admin, sensor.deviceid, cut + 3_000, restored - 1_000)).length).to.be.at.least(2);
  });

  it('after a restart, fills the time the service was down', async () => {
    const { admin } = await start();
    const sensor = await sensorOf(admin);
    await sleep(6_000);
    run!.child.kill('SIGTERM');
    await run!.exited;
    const stopped = Date.now();
    await sleep(12_000);
    const restarted = Date.now();

    const again = await start();

    expect((await pointsBetween(again.admin, sensor.deviceid, stopped + 1_000, restarted)).length).to.be.at.least(2);
  });
});

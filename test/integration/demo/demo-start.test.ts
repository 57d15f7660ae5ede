import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpClient } from '../../helpers/http';
import { MainProcess, startMainProcess } from '../../helpers/main-process';

const ADMIN_TOKEN = 'demo-test-admin-token-0123456789';

interface PrintedDemo {
  baseUrl: string;
  sensor: { deviceid: string; token: string };
  lamp: { deviceid: string; token: string };
  userToken: string;
}

/** Reads the credentials block the demo prints, as a person would copy it. */
async function demoBlockOf(run: MainProcess): Promise<PrintedDemo> {
  const [block] = await run.waitFor(/openpie demo:[\s\S]*?\n={20,}\n/, 30_000);
  const device = (alias: string) => {
    const m = new RegExp(`${alias}: [^\\n]*\\n  deviceid \\(ClientID\\): (\\S+)\\n  token: +(\\S+)`).exec(block);
    if (!m) throw new Error(`no ${alias} in:\n${block}`);
    return { deviceid: m[1], token: m[2] };
  };
  return {
    baseUrl: /Trial explorer: (\S+)\/trial/.exec(block)![1],
    sensor: device('demo-sensor'),
    lamp: device('demo-lamp'),
    userToken: /every demo start prints a new one:\n  (\S+)/.exec(block)![1],
  };
}

const last24h = (metric: string, attr: string) => ({
  start_relative: { value: 24, unit: 'hours' },
  metrics: [{ name: metric, tags: { attr: [attr] } }],
});

async function stop(run: MainProcess): Promise<void> {
  run.child.kill('SIGTERM');
  expect(await run.exited).to.equal(0);
}

describe('DEMO=true: the demo project on start', function () {
  this.timeout(90_000);
  let dataDir: string;
  const runs: MainProcess[] = [];
  const start = (env: Record<string, string>, args: string[] = []) => {
    const run = startMainProcess({ DATA_DIR: dataDir, PORT: '0', MQTT_PORT: '0', COAP_PORT: '0', ADMIN_TOKEN, ...env }, args);
    runs.push(run);
    return run;
  };
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'openpie-demo-'));
  });
  after(async () => {
    for (const run of runs) if (run.child.exitCode === null) run.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  let first: PrintedDemo;

  it('with --demo, makes two devices, prints their credentials and a user token, and a day of points is queryable at once', async () => {
    const run = start({}, ['--demo']);
    first = await demoBlockOf(run);
    const api = httpClient(first.baseUrl);
    const admin = httpClient(first.baseUrl, { authorization: `Bearer ${ADMIN_TOKEN}` });

    const listed = await admin('GET', '/v2/admin/devices?projectid=demo');
    expect(listed.body.devices.map((d: { alias: string; groupid: string }) => `${d.groupid}/${d.alias}`))
      .to.deep.equal(['demo/demo-lamp', 'demo/demo-sensor']);
    expect(listed.body.devices.map((d: { deviceid: string }) => d.deviceid)).to.have.members([first.sensor.deviceid, first.lamp.deviceid]);

    const status = await api('GET', '/v2/device/status', { headers: { authorization: `Device ${first.lamp.deviceid}:${first.lamp.token}` } });
    expect(status.status).to.equal(200);
    expect(status.body.alias).to.equal('demo-lamp');

    const asUser = { authorization: `Bearer ${first.userToken}` };
    for (const attr of ['temp', 'humid']) {
      const res = await api('POST', '/v2/feed/api/v1/datapoints/query', { headers: asUser, body: last24h(first.sensor.deviceid, attr) });
      expect(res.status, res.text).to.equal(200);
      const values: [number, number][] = res.body.queries[0].results[0].values;
      expect(values.length, attr).to.be.within(1430, 1460);
      expect(values[0][0]).to.be.greaterThan(Date.now() - 24 * 3600_000 - 60_000);
      for (const [, v] of values) expect(v).to.be.a('number');
    }
    await stop(run);
  });

  it('streams a reading of demo-sensor every few seconds, through the shadow', async () => {
    const run = start({ DEMO: 'true' });
    const printed = await demoBlockOf(run);
    const api = httpClient(printed.baseUrl, { authorization: `Device ${printed.sensor.deviceid}:${printed.sensor.token}` });
    const before = await api('GET', '/v2/device/shadow/data');
    await new Promise((r) => setTimeout(r, 6_000));
    const after = await api('GET', '/v2/device/shadow/data');
    expect(after.body.rev).to.be.greaterThan(before.body.rev);
    expect(after.body.data).to.have.keys('temp', 'humid');
    expect(after.body.timestamp).to.be.greaterThan(Date.now() - 10_000);
    await stop(run);
  });

  it('on a later start with the same DATA_DIR, reuses the devices and records the day only once', async () => {
    const run = start({ DEMO: 'true' });
    const again = await demoBlockOf(run);
    // The same devices, with a new token each: the registry keeps only digests, so the banner shows new credentials.
    expect(again.sensor.deviceid).to.equal(first.sensor.deviceid);
    expect(again.lamp.deviceid).to.equal(first.lamp.deviceid);
    expect(again.sensor.token).not.to.equal(first.sensor.token);
    const admin = httpClient(again.baseUrl, { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect((await admin('GET', '/v2/admin/devices?projectid=demo')).body.devices).to.have.lengthOf(2);

    const res = await httpClient(again.baseUrl)('POST', '/v2/feed/api/v1/datapoints/query', {
      headers: { authorization: `Bearer ${again.userToken}` }, body: last24h(again.sensor.deviceid, 'temp'),
    });
    // The first day plus a few streamed readings, not a second day.
    expect(res.body.queries[0].results[0].values.length).to.be.within(1430, 1480);
    await stop(run);
  });

  it('is off by default: no demo devices, nothing printed', async () => {
    const emptyDir = mkdtempSync(join(tmpdir(), 'openpie-nodemo-'));
    try {
      const run = startMainProcess({ DATA_DIR: emptyDir, PORT: '0', MQTT_PORT: '0', COAP_PORT: '0', ADMIN_TOKEN });
      runs.push(run);
      const [, port] = await run.waitFor(/"httpPort":(\d+)/);
      const admin = httpClient(`http://127.0.0.1:${port}`, { authorization: `Bearer ${ADMIN_TOKEN}` });
      expect((await admin('GET', '/v2/admin/devices?projectid=demo')).body.devices).to.deep.equal([]);
      expect(run.output()).to.not.contain('openpie demo');
      await stop(run);
    } finally {
      rmSync(emptyDir, { recursive: true, force: true });
    }
  });
});

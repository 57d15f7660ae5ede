import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { MqttClient } from 'mqtt';
import type { Page } from 'playwright-core';
import { aDevice, TestDevice } from '../../helpers/devices';
import { chromiumOrSkip, expectedRefusal, isPng, launchBrowser, TestBrowser } from '../../helpers/browser';
import { connectDevice, endAll, nextMessage } from '../../helpers/mqtt';
import { asDevice } from '../../helpers/rest-device';
import { Stack, startStack } from '../../helpers/stack';

/** Points of `temp` written through the REST batch endpoint, one a minute up to now. */
const TEMPS = [20, 22, 21, 25, 23, 19, 24, 26, 22, 21];

/**
 * The console end to end, as an operator uses it: headless Chromium (Debian's package, driven by playwright-core)
 * against a whole service on free ports, with real mqtt.js devices. Each step is checked on the page (elements,
 * text, what the chart says it drew), and a screenshot of it is checked to be a PNG.
 */
describe('the web console in headless Chromium', function () {
  // A browser start and a few polling periods of the device list (2 s).
  this.timeout(60_000);
  let stack: Stack;
  let browser: TestBrowser;
  let page: Page;
  let sensor: TestDevice;
  let lamp: TestDevice;
  let clients: MqttClient[] = [];

  const shot = async (name: string) => {
    const png = await browser.screenshot(name);
    expect(isPng(png), `${name}.png is a PNG`).to.equal(true);
    expect(png.length).to.be.greaterThan(5000);
  };
  const textOf = async (selector: string) => (await page.locator(selector).textContent())?.trim() ?? '';

  before(async function () {
    chromiumOrSkip(this);
    stack = await startStack();
    sensor = await aDevice(stack, { alias: 'sensor' });
    lamp = await aDevice(stack, { projectid: sensor.projectid, groupid: sensor.groupid, alias: 'lamp' });
    const batch = TEMPS.map((temp, i) => ({ data: { temp }, ts: -60_000 * (TEMPS.length - 1 - i) - 1000 }));
    const written = await asDevice(stack, sensor)('PUT', '/v2/device/shadow/batch', { body: { batch } });
    expect(written.status, written.text).to.equal(200);
    await asDevice(stack, sensor)('PUT', '/v2/device/shadow/data', { body: { data: { power: 'on', old: 1, config: { mode: 'eco', level: 2 } } } });
    browser = await launchBrowser();
    page = browser.page;
  });

  afterEach(async () => {
    await endAll(...clients);
    clients = [];
  });

  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('logs in with the admin token, and refuses a wrong one', async () => {
    await page.goto(`${stack.baseUrl}/console`);
    await page.locator('#login-form').waitFor();
    expect(await page.locator('#nav').isHidden()).to.equal(true);

    await page.fill('#admin-token', 'not-the-admin-token-000000');
    await page.click('#login-form button[type=submit]');
    await page.locator('#login-error:not(:empty)').waitFor();
    expect(await textOf('#login-error')).to.equal('That is neither the admin token of this service nor a current operator key.');
    await shot('01-login-refused');

    await page.fill('#admin-token', stack.server.adminToken);
    await page.click('#login-form button[type=submit]');
    await page.locator('table#devices').waitFor();
    expect(await page.locator('#nav').isVisible()).to.equal(true);
    expect(await page.evaluate("sessionStorage.getItem('openpie.adminToken')")).to.equal(stack.server.adminToken);
  });

  it('lists a project\'s devices, online while an mqtt.js client is connected and offline after it leaves', async () => {
    await page.goto(`${stack.baseUrl}/console#/devices/${sensor.projectid}`);
    const row = `tr[data-deviceid="${sensor.deviceid}"]`;
    await page.locator(row).waitFor();
    expect(await page.locator('#project').inputValue()).to.equal(sensor.projectid);
    expect(await page.locator('table#devices tbody tr').count()).to.equal(2);
    expect(await textOf(`${row} .badge`)).to.equal('offline');

    const client = await connectDevice(stack.mqttUrl, sensor);
    clients.push(client);
    await page.locator(`${row}[data-status="1"]`).waitFor({ timeout: 10_000 });
    expect(await textOf(`${row} .badge`)).to.equal('online');
    expect(await textOf(`tr[data-deviceid="${lamp.deviceid}"] .badge`)).to.equal('offline');
    await shot('02-devices-online');

    await client.endAsync();
    await page.locator(`${row}[data-status="0"]`).waitFor({ timeout: 10_000 });
    expect(await textOf(`${row} .badge`)).to.equal('offline');
    await shot('03-devices-offline');
  });

  it('opens a device and shows its shadow', async () => {
    await page.click(`tr[data-deviceid="${sensor.deviceid}"] a[href^="#/device/"]`);
    await page.locator('h1', { hasText: 'sensor' }).waitFor();
    await page.locator('#shadow-json[data-rev]').waitFor();
    const shown = JSON.parse(await textOf('#shadow-json'));
    expect(shown).to.deep.equal({ power: 'on', old: 1, config: { mode: 'eco', level: 2 }, temp: TEMPS[TEMPS.length - 1] });
    await shot('04-device-shadow');
  });

  it('merge-edits the shadow and shows the change', async () => {
    const rev = Number(await page.locator('#shadow-json').getAttribute('data-rev'));
    await page.fill('#shadow-edit', '{"config": {"mode": "away"}, "old": null, "note": "set from the console"}');
    await page.click('#shadow-form button[type=submit]');

    await page.locator('#shadow-result:not(:empty)').waitFor();
    expect(await textOf('#shadow-result')).to.equal(`Applied: revision ${rev + 1}.`);
    const expected = { power: 'on', config: { mode: 'away', level: 2 }, temp: TEMPS[TEMPS.length - 1], note: 'set from the console' };
    expect(JSON.parse(await textOf('#shadow-json'))).to.deep.equal(expected);
    const stored = await asDevice(stack, sensor)('GET', '/v2/device/shadow/data');
    expect(stored.body.data).to.deep.equal(expected);

    await page.fill('#shadow-edit', '[1, 2]');
    await page.click('#shadow-form button[type=submit]');
    await page.locator('#shadow-error:not(:empty)').waitFor();
    expect(await textOf('#shadow-error')).to.contain('Expected a JSON object');
    await shot('05-shadow-merged');
  });

  it('draws the history of points written through the batch endpoint, raw and aggregated', async () => {
    const facts = async () => JSON.parse((await page.locator('#chart-figure').getAttribute('data-series')) ?? '[]')
      .find((f: { field: string }) => f.field === 'temp');
    await page.locator('#chart-fields input[value="temp"]').waitFor({ state: 'attached' });
    await page.selectOption('#chart-aggregator', 'none');
    await page.locator('#chart-figure[data-state="drawn"][data-aggregator="none"]').waitFor({ state: 'attached' });
    expect(await facts()).to.deep.include({ count: TEMPS.length, min: Math.min(...TEMPS), max: Math.max(...TEMPS), gaps: 0 });
    expect(await textOf('#chart-summary')).to.match(/^raw points from .*temp: 10 points, lowest 19, highest 26/);
    await shot('06-chart-raw');

    await page.selectOption('#chart-aggregator', 'min');
    await page.selectOption('#chart-sampling', { label: '1 hour' });
    await page.locator('#chart-figure[data-state="drawn"][data-aggregator="min"][data-sampling="1 hour"]').waitFor({ state: 'attached' });
    // Ten minutes of points fall in one or two hourly buckets; the lowest minimum is the lowest point.
    const aggregated = await facts();
    expect(aggregated.count).to.be.within(1, 2);
    expect(aggregated.min).to.equal(Math.min(...TEMPS));

    await page.selectOption('#chart-range', '15m');
    await page.selectOption('#chart-aggregator', 'count');
    await page.selectOption('#chart-sampling', { label: '1 day' });
    await page.locator('#chart-figure[data-state="drawn"][data-aggregator="count"][data-sampling="1 day"]').waitFor({ state: 'attached' });
    const counts = await facts();
    expect(counts.count).to.be.within(1, 2);
    expect(counts.max).to.be.at.most(TEMPS.length);
    await shot('07-chart-count');
  });

  it('shows a live message of the group after an MQTT publish', async () => {
    await page.click('#group-messages-link');
    await page.locator('h1', { hasText: `Messages of group ${sensor.groupid}` }).waitFor();
    await page.locator('#stream-state[data-state="listening"]').waitFor();

    const client = await connectDevice(stack.mqttUrl, lamp);
    clients.push(client);
    await client.publishAsync('@msg/home/lamp', 'ON', { qos: 1 });

    const item = page.locator('#messages li.message[data-topic="@msg/home/lamp"]');
    await item.waitFor();
    expect(await item.locator('pre.payload').textContent()).to.equal('ON');
    expect(await item.locator('.meta').textContent()).to.equal('2 bytes');
    await shot('08-live-message');
  });

  it('publishes from the box, and an mqtt.js client of the group receives it', async () => {
    const client = await connectDevice(stack.mqttUrl, lamp);
    clients.push(client);
    await client.subscribeAsync('@msg/#', { qos: 1 });
    const received = nextMessage(client, (topic) => topic === '@msg/console/out', 5000);

    await page.fill('#publish-topic', 'console/out');
    await page.fill('#publish-payload', 'hello from the console');
    await page.click('#publish-form button[type=submit]');

    expect(await received).to.deep.equal({ topic: '@msg/console/out', payload: 'hello from the console' });
    await page.locator('#publish-result:not(:empty)').waitFor();
    expect(await textOf('#publish-result')).to.equal('Done: published to @msg/console/out.');
    await page.locator('#messages li.message[data-topic="@msg/console/out"]').waitFor();

    await page.fill('#publish-topic', 'bad/+');
    await page.click('#publish-form button[type=submit]');
    await page.locator('#publish-error:not(:empty)').waitFor();
    expect(await textOf('#publish-error')).to.contain('INVALID_TOPIC');
    await shot('09-published');
  });

  it('imports a CSV file: the dry run lists the device, then Import creates it with the ClientID brought along', async () => {
    const deviceid = randomUUID();
    const csv = `clientid,token,secret,projectid,groupid,alias\n${deviceid},Tk${randomUUID().replaceAll('-', '')},Sc${randomUUID().replaceAll('-', '')},${sensor.projectid},imported,moved\n`;
    await page.goto(`${stack.baseUrl}/console#/import`);
    await page.locator('#import-form').waitFor();

    await page.setInputFiles('#import-file', { name: 'fleet.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.click('#import-check');
    await page.locator('#import-report').waitFor();
    expect(await textOf('#import-report-heading')).to.equal('1 devices would be created');
    expect((await stack.admin('GET', `/v2/admin/devices/${deviceid}`)).status).to.equal(404);
    await page.click('#import-apply');
    await page.locator('#import-report-heading', { hasText: '1 devices created' }).waitFor();

    expect((await stack.admin('GET', `/v2/admin/devices/${deviceid}`)).body).to.include({ alias: 'moved', groupid: 'imported' });
    await shot('10-imported');
  });

  it('logs out, forgetting the token', async () => {
    await page.click('#logout');
    await page.locator('#login-form').waitFor();
    expect(await page.evaluate("sessionStorage.getItem('openpie.adminToken')")).to.equal(null);
  });

  it('ran with no script error and no Content-Security-Policy violation', () => {
    // The refused login and the refused topic were answered 4xx on purpose; Chromium logs each such response.
    const unexpected = browser.pageErrors.filter((e) => !expectedRefusal(e, [401, 400]));
    expect(unexpected).to.deep.equal([]);
  });
});

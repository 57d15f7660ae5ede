import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { MqttClient } from 'mqtt';
import type { Page } from 'playwright-core';
import { chromiumOrSkip, expectedRefusal, isPng, launchBrowser, TestBrowser } from '../../helpers/browser';
import { aDevice, TestDevice } from '../../helpers/devices';
import { connectDevice, endAll } from '../../helpers/mqtt';
import { restPublish } from '../../helpers/mqtt-expect';
import { asDevice } from '../../helpers/rest-device';
import { Stack, startStack } from '../../helpers/stack';

/** Devices of the big project: enough for many pages (50 a page), created through the admin API. */
const FLEET = 2000;

/**
 * The console running a fleet with the admin token (issue 13 §2), in headless Chromium against a whole service:
 * create a device (credentials once, copy buttons, a mosquitto_sub line that works), enable, disable, ban, rotate
 * the key, move, delete after a confirmation, search and page through a project of 2000 devices, projects and groups
 * with online counts, a device's schema, triggers and quota usage. Each step is checked on the page, and its
 * screenshot is checked to be a PNG.
 */
describe('the web console runs a fleet (headless Chromium)', function () {
  this.timeout(120_000);
  let stack: Stack;
  let browser: TestBrowser;
  let page: Page;
  const project = `fleet-${randomUUID().slice(0, 6)}`;
  let fleet: TestDevice[] = [];
  let clients: MqttClient[] = [];

  const shot = async (name: string) => {
    const png = await browser.screenshot(name);
    expect(isPng(png), `${name}.png is a PNG`).to.equal(true);
    expect(png.length).to.be.greaterThan(5000);
  };
  const textOf = async (selector: string) => (await page.locator(selector).first().textContent())?.trim() ?? '';
  const record = async (deviceid: string) => (await stack.admin('GET', `/v2/admin/devices/${deviceid}`)).body;
  const statusAs = (deviceid: string, token: string) =>
    stack.http('GET', '/v2/device/status', { headers: { authorization: `Device ${deviceid}:${token}` } });

  before(async function () {
    chromiumOrSkip(this);
    stack = await startStack();
    for (let i = 0; i < FLEET; i += 50) {
      fleet.push(...await Promise.all(Array.from({ length: Math.min(50, FLEET - i) }, (_, k) => {
        const n = i + k;
        return aDevice(stack, { projectid: project, groupid: n % 2 === 0 ? 'east' : 'west', alias: `node-${String(n).padStart(4, '0')}` });
      })));
    }
    browser = await launchBrowser();
    page = browser.page;
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.baseUrl });
    await page.goto(`${stack.baseUrl}/console`);
    await page.evaluate(`sessionStorage.setItem('openpie.adminToken', ${JSON.stringify(stack.server.adminToken)})`);
  });
  afterEach(async () => {
    await endAll(...clients);
    clients = [];
  });
  after(async () => {
    await browser?.close();
    await stack?.stop();
    fleet = [];
  });

  it('shows projects and groups with their device counts and how many are online', async () => {
    clients.push(await connectDevice(stack.mqttUrl, fleet[1]));
    await page.goto(`${stack.baseUrl}/console#/projects`);
    const row = `tr.project-row[data-projectid="${project}"]`;
    await page.locator(`${row} .online-count`, { hasText: '1' }).waitFor({ timeout: 10_000 });

    expect(await textOf(`${row} .count`)).to.equal(String(FLEET));
    expect(await textOf(`tr.group-row[data-projectid="${project}"][data-groupid="west"] .online-count`)).to.equal('1');
    expect(await textOf(`tr.group-row[data-projectid="${project}"][data-groupid="east"] .online-count`)).to.equal('0');
    expect(await textOf(`tr.group-row[data-projectid="${project}"][data-groupid="east"] .count`)).to.equal(String(FLEET / 2));
    await shot('fleet-01-projects');
  });

  it('pages through a project of 2000 devices, and finds one by alias or id', async () => {
    await page.goto(`${stack.baseUrl}/console#/devices/${project}`);
    await page.locator('#page-info', { hasText: `of ${FLEET}` }).waitFor();
    expect(await textOf('#page-info')).to.equal(`Devices 1–50 of ${FLEET}`);
    expect(await page.locator('table#devices tbody tr').count()).to.equal(50);
    expect(await page.locator('#page-prev').isDisabled()).to.equal(true);

    await page.click('#page-next');
    await page.locator('#page-info', { hasText: 'Devices 51–100' }).waitFor();
    // Sorted by group, then alias: group east holds the even numbers, so its 51st device comes first.
    expect(await textOf('table#devices tbody tr td a')).to.equal('node-0100');
    await shot('fleet-02-page-2');

    await page.fill('#device-search', 'NODE-1199');
    await page.locator('#page-info', { hasText: 'Devices 1–1 of 1' }).waitFor();
    expect(await textOf('table#devices tbody tr td a')).to.equal('node-1199');
    await page.fill('#device-search', fleet[7].deviceid.slice(0, 8));
    await page.locator(`tr[data-deviceid="${fleet[7].deviceid}"]`).waitFor();
    await shot('fleet-03-search');

    await page.goto(`${stack.baseUrl}/console#/devices/${project}/west`);
    await page.locator('#page-info', { hasText: `of ${FLEET / 2}` }).waitFor();
    expect(await page.locator('#group').inputValue()).to.equal('west');
  });

  let fresh: { deviceid: string; token: string };

  it('creates a device and shows its credentials once, with copy buttons and a mosquitto_sub line that works', async () => {
    await page.goto(`${stack.baseUrl}/console#/new-device/${project}`);
    await page.fill('#new-group', 'lab');
    await page.fill('#new-alias', 'fresh');
    await page.click('#new-device-form button[type=submit]');
    await page.locator('#new-credentials').waitFor();
    await page.locator('#cred-mosquitto-sub').waitFor();
    fresh = { deviceid: await page.inputValue('#cred-deviceid'), token: await page.inputValue('#cred-token') };

    const stored = await record(fresh.deviceid);
    expect(stored).to.include({ alias: 'fresh', projectid: project, groupid: 'lab' }).and.not.to.have.any.keys('token', 'secret');
    expect(await page.inputValue('#cred-secret')).to.match(/^[A-Za-z0-9]{32}$/);
    expect(await page.inputValue('#cred-device-auth')).to.equal(`Device ${fresh.deviceid}:${fresh.token}`);
    await page.click('#copy-token');
    await page.locator('#copy-status', { hasText: 'Token copied.' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).to.equal(fresh.token);
    await shot('fleet-04-created');

    const line = await page.inputValue('#cred-mosquitto-sub');
    expect(line).to.equal(`mosquitto_sub -h 127.0.0.1 -p ${stack.server.mqttPort} -i ${fresh.deviceid} -u ${fresh.token} -t '@msg/#' -v`);
    // The line as an operator pastes it, with a count and a deadline so that it ends.
    const heard = new Promise<string>((done, fail) => execFile('sh', ['-c', `${line} -C 1 -W 10`], (err, stdout) => (err ? fail(err) : done(stdout))));
    await new Promise((r) => setTimeout(r, 1000));
    const groupmate = await aDevice(stack, { projectid: project, groupid: 'lab' });
    await restPublish(stack, groupmate, 'lab/hello', 'from the group');
    expect((await heard).trim()).to.equal('@msg/lab/hello from the group');
  });

  it('disables and enables, bans and unbans a device', async () => {
    await page.goto(`${stack.baseUrl}/console#/device/${fresh.deviceid}`);
    await page.locator('#enable-button', { hasText: 'Disable' }).waitFor();

    await page.click('#enable-button');
    await page.locator('#device-state', { hasText: 'disabled' }).waitFor();
    expect(await textOf('#manage-result')).to.equal('Disabled: it may not connect.');
    expect((await record(fresh.deviceid)).enabled).to.equal(false);
    expect((await statusAs(fresh.deviceid, fresh.token)).status).to.equal(403);
    await shot('fleet-05-disabled');

    await page.click('#enable-button');
    await page.locator('#device-state', { hasText: 'enabled' }).waitFor();
    await page.click('#ban-button');
    await page.locator('#device-state', { hasText: 'banned' }).waitFor();
    expect((await record(fresh.deviceid)).banned).to.equal(true);
    expect(await textOf('#ban-button')).to.equal('Unban');
    await shot('fleet-06-banned');
    await page.click('#ban-button');
    await page.locator('#device-state', { hasText: 'enabled' }).waitFor();
    expect((await record(fresh.deviceid))).to.include({ enabled: true, banned: false });
  });

  it('rotates the key: the new token is shown once, the old one stops working', async () => {
    await page.click('#rotate-button');
    await page.locator('#rotated-credentials #cred-token').waitFor();
    const token = await page.inputValue('#rotated-credentials #cred-token');

    expect(token).to.not.equal(fresh.token);
    expect(await page.locator('#rotated-credentials #cred-secret').count(), 'a token rotation issues no secret').to.equal(0);
    expect((await statusAs(fresh.deviceid, fresh.token)).status).to.equal(401);
    expect((await statusAs(fresh.deviceid, token)).status).to.equal(200);
    await shot('fleet-07-rotated');
  });

  it('moves a device to another group', async () => {
    await page.fill('#move-group', 'east');
    await page.click('#move-button');
    await page.locator('#group-messages-link', { hasText: 'east' }).waitFor();

    expect((await record(fresh.deviceid)).groupid).to.equal('east');
    expect(await textOf('#manage-result')).to.match(/^Moved to group east/);
    await shot('fleet-08-moved');
  });

  it('deletes a device only after the confirmation', async () => {
    await page.click('#delete-button');
    await page.locator('#delete-dialog[open]').waitFor();
    expect(await textOf('#delete-question')).to.contain(fresh.deviceid);
    await shot('fleet-09-confirm-delete');
    await page.click('#delete-cancel');
    expect(await page.locator('#delete-dialog[open]').count()).to.equal(0);
    expect((await stack.admin('GET', `/v2/admin/devices/${fresh.deviceid}`)).status).to.equal(200);

    await page.click('#delete-button');
    await page.click('#delete-confirm');
    await page.locator('#flash', { hasText: 'Deleted fresh' }).waitFor();

    expect(page.url()).to.contain(`#/devices/${project}`);
    expect((await stack.admin('GET', `/v2/admin/devices/${fresh.deviceid}`)).status).to.equal(404);
    await shot('fleet-10-deleted');
  });

  it('shows a device\'s schema, triggers and its project\'s quota usage', async () => {
    const device = fleet[0];
    const schema = { properties: { temp: { type: 'number', minimum: -40, maximum: 85 } } };
    expect((await stack.admin('PUT', `/v2/admin/devices/${device.deviceid}/schema`, { body: schema })).status).to.equal(200);
    expect((await stack.admin('PUT', `/v2/admin/projects/${project}/hooks/alert`, { body: { type: 'MESSAGE', config: { topic: '@msg/alerts' } } })).status).to.equal(200);
    const triggers = { enabled: true, trigger: [{ id: 'hot', event: 'SHADOW.UPDATED', condition: '$NEW.temp > 30', action: 'alert' }] };
    expect((await stack.admin('PUT', `/v2/admin/devices/${device.deviceid}/triggers`, { body: triggers })).status).to.equal(200);
    expect((await stack.admin('PUT', `/v2/admin/projects/${project}/quotas`, { body: { shadowOps: 1000 } })).status).to.equal(200);
    expect((await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { temp: 21 } } })).status).to.equal(200);

    // The page's own reads (the shadow, its revisions) are shadow operations too, some made after it asked for the
    // quotas: the table must show what the API answered the page.
    const quotaAnswer = page.waitForResponse((r) => r.url().endsWith(`/v2/admin/projects/${project}/quotas`));
    await page.goto(`${stack.baseUrl}/console#/device/${device.deviceid}`);
    await page.locator('#schema-json').waitFor();
    await page.locator('#quota-table').waitFor();

    expect(JSON.parse(await textOf('#schema-json'))).to.deep.include({ properties: schema.properties });
    expect(await textOf('#triggers-list li[data-trigger="hot"]')).to.equal('hot on SHADOW.UPDATED when $NEW.temp > 30 → alert');
    const usage = (await (await quotaAnswer).json()).quotas.shadowOps;
    expect(usage.used).to.be.greaterThan(0);
    expect(await textOf('#quota-table tr[data-quota="shadowOps"] .used')).to.equal(String(usage.used));
    expect(await textOf('#quota-table tr[data-quota="shadowOps"] .limit')).to.equal('1000');
    expect(await textOf('#quota-table tr[data-quota="messages"] .limit')).to.equal('unlimited');
    await shot('fleet-11-settings');

    await page.goto(`${stack.baseUrl}/console#/device/${fleet[2].deviceid}`);
    await page.locator('#schema-none').waitFor();
    await page.locator('#triggers-none').waitFor();
  });

  it('ran with no script error and no Content-Security-Policy violation', () => {
    expect(browser.pageErrors.filter((e) => !expectedRefusal(e, []))).to.deep.equal([]);
  });
});

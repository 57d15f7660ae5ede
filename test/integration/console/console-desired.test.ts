import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { aDevice, TestDevice } from '../../helpers/devices';
import { chromiumOrSkip, launchBrowser, logInToConsole, TestBrowser } from '../../helpers/browser';
import { asDevice } from '../../helpers/rest-device';
import { Stack, startStack } from '../../helpers/stack';

/** Issue 25 §5: the device page shows desired against reported, the delta marked, and edits desired, in headless Chromium. */
describe('the device page: desired state against reported, in headless Chromium', function () {
  this.timeout(60_000);
  let stack: Stack;
  let browser: TestBrowser;
  let page: Page;
  let lamp: TestDevice;

  const row = (field: string) => page.locator(`#desired-rows tr[data-field="${field}"]`);
  const cells = async (field: string) => (await row(field).locator('th, td').allTextContents()).map((t) => t.trim());

  before(async function () {
    chromiumOrSkip(this);
    stack = await startStack();
    lamp = await aDevice(stack, { alias: 'lamp' });
    await asDevice(stack, lamp)('PUT', '/v2/device/shadow/data', { body: { data: { power: 'off', config: { level: 3 } } } });
    const res = await stack.admin('PUT', `/v2/admin/devices/${lamp.deviceid}/shadow/desired`, { body: { data: { power: 'on', config: { level: 3 } } } });
    expect(res.status, res.text).to.equal(200);
    browser = await launchBrowser();
    page = browser.page;
    await logInToConsole(page, stack);
    await page.goto(`${stack.baseUrl}/console#/device/${lamp.deviceid}`);
  });

  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('shows each desired field beside the reported value, marking the ones still pending', async () => {
    await row('power').waitFor();

    expect(await cells('power')).to.deep.equal(['power', '"on"', '"off"', 'pending']);
    expect(await cells('config.level')).to.deep.equal(['config.level', '3', '3', 'reported']);
    expect(await row('power').getAttribute('class')).to.equal('delta');
    expect(await row('config.level').getAttribute('class')).to.equal(null);
  });

  it('moves a field out of the delta once the device reports it', async () => {
    await asDevice(stack, lamp)('PUT', '/v2/device/shadow/data', { body: { data: { power: 'on' } } });

    await page.locator('#desired-rows tr[data-field="power"]:not(.delta)').waitFor();
    expect(await cells('power')).to.deep.equal(['power', '"on"', '"on"', 'reported']);
    expect(await page.locator('#desired-meta').textContent()).to.contain('reports every desired value');
  });

  it('merges what the operator writes into the desired state, which the device then has to do', async () => {
    await page.fill('#desired-edit', '{"config": {"level": 5}}');
    await page.click('#desired-form button[type=submit]');

    await page.locator('#desired-result:not(:empty)').waitFor();
    expect(await page.locator('#desired-result').textContent()).to.match(/^Desired state at revision 2; 1 field\(s\) pending\./);
    expect(await cells('config.level')).to.deep.equal(['config.level', '5', '3', 'pending']);
    const stored = await asDevice(stack, lamp)('GET', '/v2/device/shadow/desired');
    expect(stored.body.desired).to.deep.equal({ power: 'on', config: { level: 5 } });
  });

  it('says why it refuses text that is not a JSON object, writing nothing', async () => {
    await page.fill('#desired-edit', '[1, 2]');
    await page.click('#desired-form button[type=submit]');

    await page.locator('#desired-error:not(:empty)').waitFor();
    expect(await page.locator('#desired-error').textContent()).to.contain('Expected a JSON object');
    expect((await asDevice(stack, lamp)('GET', '/v2/device/shadow/desired')).body.rev).to.equal(2);
  });
});

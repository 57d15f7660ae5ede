import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { aDevice, TestDevice } from '../../helpers/devices';
import { chromiumOrSkip, launchBrowser, logInToConsole, TestBrowser } from '../../helpers/browser';
import { pointsOf } from '../../helpers/mqtt-shadow';
import { asDevice } from '../../helpers/rest-device';
import { Stack, startStack } from '../../helpers/stack';

/** The datatags table of the console's device page (issue 23 §1): the enable toggle, clear feed, delete feed. */
describe('console: a device\'s datatags', function () {
  this.timeout(60_000);
  let stack: Stack;
  let browser: TestBrowser;
  let page: Page;
  let device: TestDevice;

  before(async function () {
    chromiumOrSkip(this);
    stack = await startStack();
    device = await aDevice(stack);
    await stack.admin('PUT', `/v2/admin/devices/${device.deviceid}/datatags`, {
      body: [{ path: 'env.temp', type: 'number', attr: 'temp', ttl: '30d', unit: 'C' }, { path: 'door', type: 'boolean', attr: 'door', ttl: '7d' }],
    });
    await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { env: { temp: 20 }, door: true } } });
    browser = await launchBrowser();
    page = browser.page;
    // Clear and delete feed ask first; the operator says yes.
    page.on('dialog', (dialog) => void dialog.accept());
    await logInToConsole(page, stack);
    await page.goto(`${stack.baseUrl}/console#/device/${device.deviceid}`);
    await page.locator('#datatags-table').waitFor();
  });
  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const rowOf = (attr: string) => page.locator(`#datatags-table tr[data-attr="${attr}"]`);
  const tagsOf = async () => (await stack.admin('GET', `/v2/admin/devices/${device.deviceid}/datatags`)).body as { attr: string; enabled: boolean }[];

  it('lists the device\'s tags with their path, type and ttl', async () => {
    expect(await page.locator('#datatags-table tbody tr').count()).to.equal(2);
    expect(await rowOf('temp').textContent()).to.contain('env.temp').and.contain('number, C').and.contain('30d');
  });

  it('disables and enables a tag with its toggle', async () => {
    await rowOf('temp').locator('button.toggle').click();
    await rowOf('temp').locator('button.toggle[aria-pressed="false"]').waitFor();
    expect((await tagsOf()).find((t) => t.attr === 'temp')?.enabled).to.equal(false);

    await rowOf('temp').locator('button.toggle').click();
    await rowOf('temp').locator('button.toggle[aria-pressed="true"]').waitFor();
    expect((await tagsOf()).find((t) => t.attr === 'temp')?.enabled).to.equal(true);
  });

  it('clears a tag\'s feed, keeping the tag, and deletes another tag with its feed', async () => {
    expect([(await pointsOf(stack, device, 'temp')).length, (await pointsOf(stack, device, 'door')).length]).to.deep.equal([1, 1]);

    await rowOf('temp').locator('button.clear').click();
    await page.locator('#datatags-result', { hasText: 'Points of temp deleted.' }).waitFor();
    await rowOf('door').locator('button.delete').click();
    await page.locator('#datatags-result', { hasText: 'Tag door and its points deleted.' }).waitFor();

    expect(await pointsOf(stack, device, 'temp')).to.deep.equal([]);
    expect(await pointsOf(stack, device, 'door')).to.deep.equal([]);
    expect((await tagsOf()).map((t) => t.attr)).to.deep.equal(['temp']);
    expect(await rowOf('door').count()).to.equal(0);
    expect(browser.pageErrors).to.deep.equal([]);
  });
});

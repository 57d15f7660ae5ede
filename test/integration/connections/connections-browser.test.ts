import { expect } from 'chai';
import type { MqttClient } from 'mqtt';
import type { Page } from 'playwright-core';
import { chromiumOrSkip, isPng, launchBrowser, logInToConsole, TestBrowser } from '../../helpers/browser';
import { aDevice, TestDevice } from '../../helpers/devices';
import { connectDevice, connectRaw, endAll } from '../../helpers/mqtt';
import { startStack, Stack } from '../../helpers/stack';

/** The Connections panel of the console's device page, in headless Chromium against a whole service. */
describe('the console\'s Connections panel in headless Chromium', function () {
  // A browser start and a few polling periods of the panel (3 s).
  this.timeout(60_000);
  let stack: Stack;
  let browser: TestBrowser;
  let page: Page;
  let device: TestDevice;
  const clients: MqttClient[] = [];

  before(async function () {
    chromiumOrSkip(this);
    stack = await startStack();
    device = await aDevice(stack, { alias: 'inspected' });
    browser = await launchBrowser();
    page = browser.page;
    await logInToConsole(page, stack);
  });
  after(async () => {
    await endAll(...clients);
    await browser?.close();
    await stack?.stop();
  });

  it('shows the live connection with its subscriptions, kicks it, and shows the kick, the disconnect and a refusal in the history', async () => {
    const client = await connectDevice(stack.mqttUrl, device);
    clients.push(client);
    await client.subscribeAsync('@msg/lights/#', { qos: 1 });
    const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));

    await page.goto(`${stack.baseUrl}/console#/device/${device.deviceid}`);
    const row = page.locator('#connections-live tbody tr[data-transport=tcp]');
    await row.filter({ hasText: '@msg/lights/#' }).waitFor();
    expect(await row.textContent()).to.include('3.1.1').and.include('QoS 1').and.include('127.0.0.1');
    expect(await page.locator('#connections-none').isHidden()).to.equal(true);
    expect(isPng(await browser.screenshot('connections-live'))).to.equal(true);

    await page.fill('#kick-reason', 'tried from the console');
    await page.click('#kick-button');
    await page.locator('#kick-result:not(:empty)').waitFor();
    expect(await page.locator('#kick-result').textContent()).to.equal('Kicked (kicked by an operator: tried from the console).');
    await closed;
    await connectRaw(stack.mqttUrl, { clientId: device.deviceid, username: 'wrong-token', password: '' }).catch(() => undefined);

    await page.locator('#connections-history tr[data-kind=refused]').filter({ hasText: 'bad credentials' }).waitFor();
    await page.locator('#connections-history tr[data-kind=disconnected]').filter({ hasText: 'kicked' }).waitFor();
    await page.locator('#connections-history tr[data-kind=kicked]').waitFor();
    await page.locator('#connections-none:visible').waitFor();
    expect(await page.locator('#connections').textContent()).not.to.include(device.token);
    expect(isPng(await browser.screenshot('connections-history'))).to.equal(true);
    expect(browser.pageErrors.filter((e) => e.startsWith('pageerror'))).to.deep.equal([]);
  });
});

import { expect } from 'chai';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { aDevice, TestDevice } from '../../helpers/devices';
import { chromiumOrSkip, isPng, launchBrowser, logInToConsole, TestBrowser } from '../../helpers/browser';
import { asDevice } from '../../helpers/rest-device';
import { Stack, startStack } from '../../helpers/stack';

/**
 * Issue 24 §3: the console's MQTT client, a device over MQTT over WebSocket (mqtt.js's browser bundle, served by the
 * service) in headless Chromium, against a whole service: a test device made on the spot, subscribe, publish with
 * MQTT 5 properties, its own message back, a message of its group published over REST, and pasted credentials
 * refused when wrong. The page's CSP (connect-src 'self') must let the WebSocket to its own origin through.
 */
describe('the console\'s MQTT client, in headless Chromium', function () {
  this.timeout(60_000);
  let stack: Stack;
  let browser: TestBrowser;
  let page: Page;
  let neighbour: TestDevice;
  /** The device the page made and connected as. */
  let testDeviceId = '';
  const statusOf = async (deviceid: string) => (await stack.admin('GET', `/v2/admin/devices/${deviceid}`)).body.status;

  const textOf = async (selector: string) => (await page.locator(selector).textContent())?.trim() ?? '';
  const message = (topic: string) => page.locator(`#mqtt-messages li[data-topic="${topic}"]`);

  before(async function () {
    chromiumOrSkip(this);
    stack = await startStack();
    // The device whose group the test device joins, to publish into that group over REST.
    neighbour = await aDevice(stack, { groupid: 'console', alias: 'neighbour' });
    browser = await launchBrowser();
    page = browser.page;
    await logInToConsole(page, stack);
  });

  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('shows the refusal of wrong pasted credentials (a CONNACK reason code, MQTT 5 §3.2.2.2)', async () => {
    await page.click('#nav a[href="#/mqtt"]');
    await page.locator('h1', { hasText: 'MQTT client' }).waitFor();
    expect(await textOf('#mqtt-url')).to.equal(`${stack.baseUrl.replace(/^http/, 'ws')}/mqtt`);
    await page.fill('#mqtt-clientid', neighbour.deviceid);
    await page.fill('#mqtt-username', 'not-the-token-of-this-device');
    await page.click('#mqtt-connect');

    await page.locator('#mqtt-state[data-state="refused"]').waitFor();
    expect(await textOf('#mqtt-state')).to.match(/^Refused: .*(Bad User Name or Password|Not authorized)/i);
    expect(await page.locator('#mqtt-live').evaluate((el) => el.hasAttribute('disabled'))).to.equal(true);
  });

  it('creates a test device, connects as it, and keeps its credentials out of storage', async () => {
    await page.click('#mqtt-test-device summary');
    await page.fill('#mqtt-test-project', neighbour.projectid);
    await page.click('#mqtt-create-device');
    await page.locator('#mqtt-test-result:not(:empty)').waitFor();
    expect(await textOf('#mqtt-test-result')).to.match(/^Created mqtt-client-[0-9a-f]{8} in /);
    const secret = await page.locator('#mqtt-password').inputValue();
    expect(secret).to.have.length.greaterThan(15);

    await page.click('#mqtt-connect');
    await page.locator('#mqtt-state[data-state="connected"]').waitFor();
    expect(await textOf('#mqtt-state')).to.match(/^Connected as [0-9a-f-]{36} \(MQTT 5\)/);
    testDeviceId = await page.locator('#mqtt-clientid').inputValue();
    expect(await statusOf(testDeviceId)).to.equal(1);
    const stored = await page.evaluate<string>('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })');
    expect(stored).to.not.include(secret);
    expect(browser.pageErrors).to.deep.equal([]);
  });

  it('subscribes, publishes with QoS 1 and MQTT 5 properties, and sees its own message with them', async () => {
    await page.fill('#mqtt-sub-topic', '@msg/#');
    await page.selectOption('#mqtt-sub-qos', '1');
    await page.click('#mqtt-sub-form button[type=submit]');
    await page.locator('#mqtt-subscriptions li[data-topic="@msg/#"][data-granted="1"]').waitFor();

    await page.fill('#mqtt-pub-topic', '@msg/console/echo');
    await page.fill('#mqtt-pub-payload', '{"t": 21.5}');
    await page.selectOption('#mqtt-pub-qos', '1');
    await page.fill('#mqtt-pub-content-type', 'application/json');
    await page.fill('#mqtt-pub-response-topic', '@msg/console/reply');
    await page.fill('#mqtt-pub-correlation', 'req-1');
    await page.fill('#mqtt-pub-user-props', 'unit=C\nunit=celsius\nsource=console');
    await page.click('#mqtt-pub-form button[type=submit]');
    await page.locator('#mqtt-pub-result:not(:empty)').waitFor();
    expect(await textOf('#mqtt-pub-result')).to.match(/^Published to @msg\/console\/echo at .* \(acknowledged\)\.$/);

    const echo = message('@msg/console/echo');
    await echo.waitFor();
    expect(await echo.locator('pre.payload').textContent()).to.equal('{"t": 21.5}');
    // Delivered at the lower of the publish's QoS and the subscription's (MQTT 5 §3.8.4 [MQTT-3.8.4-8]).
    expect(await echo.getAttribute('data-qos')).to.equal('1');
    // The properties travel to the subscriber unchanged, user properties in their order ([MQTT-3.3.2-17], [MQTT-3.3.2-18]).
    const props = (await echo.locator('pre.properties').textContent()) ?? '';
    expect(props.split('\n')).to.include.members([
      'contentType: application/json', 'responseTopic: @msg/console/reply', 'correlationData: req-1',
    ]);
    expect(props).to.include('unit=C\nunit=celsius\nsource=console');
  });

  it('receives what a device of its group publishes over REST', async () => {
    const res = await asDevice(stack, neighbour)('PUT', '/v2/device/message/console/rest', { body: 'from REST' });
    expect(res.status, res.text).to.equal(200);

    const arrived = message('@msg/console/rest');
    await arrived.waitFor();
    expect(await arrived.locator('pre.payload').textContent()).to.equal('from REST');
    if (process.env.UPDATE_DOCS_IMAGES) {
      await browser.screenshot('mqtt-client');
      copyFileSync(join(browser.screenshotDir, 'mqtt-client.png'), join(__dirname, '..', '..', '..', 'docs', 'images', 'console-mqtt-client.png'));
    }
  });

  it('gets a retained message when it subscribes again, flagged retained ([MQTT-3.3.1-9])', async () => {
    await page.fill('#mqtt-pub-topic', '@msg/console/state');
    await page.fill('#mqtt-pub-payload', 'on');
    await page.fill('#mqtt-pub-user-props', '');
    await page.check('#mqtt-pub-retain');
    await page.click('#mqtt-pub-form button[type=submit]');
    await message('@msg/console/state').waitFor();

    await page.fill('#mqtt-sub-topic', '@msg/console/state');
    await page.click('#mqtt-sub-form button[type=submit]');
    await page.locator('#mqtt-messages li[data-topic="@msg/console/state"][data-retain="true"]').waitFor();
  });

  it('refuses user properties that are not name=value before sending anything', async () => {
    await page.fill('#mqtt-pub-user-props', 'no equals sign');
    await page.click('#mqtt-pub-form button[type=submit]');
    await page.locator('#mqtt-pub-error:not(:empty)').waitFor();
    expect(await textOf('#mqtt-pub-error')).to.equal('User properties: "no equals sign" is not name=value.');
  });

  it('fits a phone\'s width (375 px)', async () => {
    await page.setViewportSize({ width: 375, height: 740 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).to.be.at.most(375);
    expect(isPng(await browser.screenshot('mqtt-client-phone'))).to.equal(true);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('disconnects, and the device goes offline, when the operator leaves the page', async () => {
    await page.click('#nav a[href="#/devices"]');
    await page.locator('table#devices').waitFor();
    for (let i = 0; i < 50 && (await statusOf(testDeviceId)) !== 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await statusOf(testDeviceId)).to.equal(0);
    expect(browser.pageErrors).to.deep.equal([]);
  });
});

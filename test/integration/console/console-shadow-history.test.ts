import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { aDevice, TestDevice } from '../../helpers/devices';
import { chromiumOrSkip, launchBrowser, logInToConsole, TestBrowser } from '../../helpers/browser';
import { asDevice } from '../../helpers/rest-device';
import { Stack, startStack } from '../../helpers/stack';

/** Issue 25 §5: the device page shows the shadow's history as a slider over its revisions, in headless Chromium. */
describe('the device page: a slider over the shadow\'s revisions, in headless Chromium', function () {
  this.timeout(60_000);
  let stack: Stack;
  let browser: TestBrowser;
  let page: Page;
  let lamp: TestDevice;

  const write = async (data: object) => {
    const res = await asDevice(stack, lamp)('PUT', '/v2/device/shadow/data', { body: { data } });
    expect(res.status, res.text).to.equal(200);
  };
  const shownDocument = async () => JSON.parse((await page.locator('#revision-json').textContent()) ?? 'null');

  before(async function () {
    chromiumOrSkip(this);
    stack = await startStack();
    lamp = await aDevice(stack, { alias: 'lamp' });
    await write({ power: 'on', level: 3, tags: ['a'] });
    await write({ level: null, mode: { name: 'eco' } });
    await write({ power: 'off' });
    browser = await launchBrowser();
    page = browser.page;
    await logInToConsole(page, stack);
    await page.goto(`${stack.baseUrl}/console#/device/${lamp.deviceid}`);
  });

  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('opens at the newest revision and shows each older document as the slider moves', async () => {
    await page.locator('#revision-json[data-rev="3"]').waitFor();
    expect(await shownDocument()).to.deep.equal({ power: 'off', tags: ['a'], mode: { name: 'eco' } });

    await page.locator('#revision-slider').fill('0');

    await page.locator('#revision-json[data-rev="1"]').waitFor();
    expect(await shownDocument()).to.deep.equal({ power: 'on', level: 3, tags: ['a'] });
    expect(await page.locator('#revision-meta').textContent()).to.match(/^Revision 1, written /);
  });

  it('keeps an older revision chosen while new writes come, and follows them again from the newest', async () => {
    await write({ power: 'on' });
    await page.locator('#shadow-json[data-rev="4"]').waitFor();
    expect(await page.locator('#revision-json').getAttribute('data-rev')).to.equal('1');

    await page.locator('#revision-slider').fill('3');
    await write({ level: 9 });

    await page.locator('#revision-json[data-rev="5"]').waitFor();
    expect((await shownDocument()).level).to.equal(9);
  });
});

import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { aDevice } from '../../helpers/devices';
import { chromiumAvailable, CHROMIUM_PATH, isPng, launchBrowser, TestBrowser } from '../../helpers/browser';
import { Stack, startStack } from '../../helpers/stack';

const PHONE = { width: 375, height: 740 };

/** Issue 24 §4: at a phone's width nothing widens the page; the devices table scrolls inside its own box. */
describe('the console and the pages at 375 px, in headless Chromium', function () {
  this.timeout(60_000);
  let stack: Stack;
  let browser: TestBrowser;
  let page: Page;
  const pageWidth = () => page.evaluate<number>('document.documentElement.scrollWidth');

  before(async function () {
    if (!chromiumAvailable()) {
      console.log(`    skipped: ${CHROMIUM_PATH} is missing`);
      this.skip();
    }
    stack = await startStack();
    const first = await aDevice(stack, { alias: 'a-sensor-with-a-rather-long-alias' });
    await aDevice(stack, { projectid: first.projectid, groupid: first.groupid, alias: 'lamp' });
    browser = await launchBrowser();
    page = browser.page;
    await page.setViewportSize(PHONE);
  });
  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('keeps the devices list within the screen, its table scrolling sideways', async () => {
    await page.goto(`${stack.baseUrl}/console`);
    await page.fill('#admin-token', stack.server.adminToken);
    await page.click('#login-form button[type=submit]');
    await page.locator('table#devices tbody tr').first().waitFor();

    expect(await pageWidth()).to.be.at.most(PHONE.width);
    const table = await page.locator('table#devices').evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    expect(table.client).to.be.at.most(PHONE.width);
    expect(table.scroll).to.be.greaterThan(table.client);
    expect(isPng(await browser.screenshot('phone-devices'))).to.equal(true);
  });

  for (const path of ['/', '/docs/', '/docs/device-api.md', '/docs/README.md']) {
    it(`shows ${path} within the screen, wide tables and code scrolling in their boxes`, async () => {
      await page.goto(`${stack.baseUrl}${path}`);

      expect(await pageWidth()).to.be.at.most(PHONE.width);
      expect(browser.pageErrors).to.deep.equal([]);
    });
  }
});

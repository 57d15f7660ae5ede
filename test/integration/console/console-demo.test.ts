import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { chromiumOrSkip, expectedRefusal, isPng, launchBrowser, TestBrowser } from '../../helpers/browser';
import { Stack, startStack } from '../../helpers/stack';

/** Starts a stack with DEMO=true, keeping the demo's credentials block (printed on stdout) out of the test report. */
async function startDemoStack(): Promise<Stack> {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) =>
    String(chunk).includes('openpie demo:') ? true : write(chunk, ...rest)) as typeof process.stdout.write;
  try {
    return await startStack({ env: { DEMO: 'true' } });
  } finally {
    process.stdout.write = write;
  }
}

/** Live status is live (issue 13 §2): the demo sensor, which sends over MQTT, shows online in the console. */
describe('the web console shows the demo sensor online while it sends (headless Chromium)', function () {
  this.timeout(60_000);
  let stack: Stack;
  let browser: TestBrowser;
  let page: Page;

  before(async function () {
    chromiumOrSkip(this);
    stack = await startDemoStack();
    browser = await launchBrowser();
    page = browser.page;
    await page.goto(`${stack.baseUrl}/console`);
    await page.evaluate(`sessionStorage.setItem('openpie.adminToken', ${JSON.stringify(stack.server.adminToken)})`);
  });
  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('lists demo-sensor online, and keeps it online across refreshes while its shadow moves on', async () => {
    await page.goto(`${stack.baseUrl}/console#/devices/demo`);
    const sensorRow = page.locator('tr', { has: page.locator('a', { hasText: 'demo-sensor' }) });
    await sensorRow.locator('.badge.online').waitFor({ timeout: 15_000 });
    expect(await page.locator('tr', { has: page.locator('a', { hasText: 'demo-lamp' }) }).locator('.badge').textContent()).to.equal('offline');
    const png = await browser.screenshot('demo-online');
    expect(isPng(png)).to.equal(true);

    await sensorRow.locator('a', { hasText: 'demo-sensor' }).click();
    await page.locator('#shadow-json[data-rev]').waitFor();
    const rev = Number(await page.locator('#shadow-json').getAttribute('data-rev'));
    await page.locator(`#shadow-json:not([data-rev="${rev}"])`).waitFor({ timeout: 15_000 });
    expect(await page.locator('#device-facts .badge').textContent()).to.equal('online');
  });

  it('ran with no script error and no Content-Security-Policy violation', () => {
    expect(browser.pageErrors.filter((e) => !expectedRefusal(e, []))).to.deep.equal([]);
  });
});

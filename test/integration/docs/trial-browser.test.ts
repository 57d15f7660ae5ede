import { expect } from 'chai';
import { chromiumAvailable, CHROMIUM_PATH, launchBrowser, TestBrowser } from '../../helpers/browser';
import { Stack, startStack } from '../../helpers/stack';

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

/** Issue 24 §4: the explorer lists each operation once (no `/device...` beside `/v2/device...`) and says why. */
describe('GET /trial in headless Chromium: each operation once', function () {
  this.timeout(60_000);
  let stack: Stack;
  let browser: TestBrowser;
  before(async function () {
    if (!chromiumAvailable()) {
      console.log(`    skipped: ${CHROMIUM_PATH} is missing`);
      this.skip();
    }
    stack = await startStack();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('shows as many operations as its document has, none under /device or /feed, and the alias line', async () => {
    const doc = (await stack.http('GET', '/trial/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.values(doc.paths).flatMap((item) => Object.keys(item).filter((k) => HTTP_METHODS.has(k))).length;
    const { page } = browser;

    await page.goto(`${stack.baseUrl}/trial`);
    await page.locator('.swagger-ui .opblock').first().waitFor();
    const paths = await page.locator('.swagger-ui .opblock .opblock-summary-path').allTextContents();

    expect(paths).to.have.length(operations);
    expect(paths.filter((p) => /^\/(device|feed)(\/|$)/.test(p.replace(/\u200b/g, '')))).to.deep.equal([]);
    expect(await page.locator('.swagger-ui .info .description').textContent()).to.contain('also answers under /device');
    expect(browser.pageErrors).to.deep.equal([]);
  });
});

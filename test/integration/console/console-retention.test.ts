import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { chromiumOrSkip, expectedRefusal, launchBrowser, TestBrowser } from '../../helpers/browser';
import { Stack, startStack } from '../../helpers/stack';

/** The retention form of the console's Projects page (issue 23 §2): show, set, refuse, back to the service default. */
describe("console: a project's retention of points", function () {
  this.timeout(60_000);
  let stack: Stack;
  let browser: TestBrowser;
  let page: Page;
  const projectid = `p-${randomUUID().slice(0, 8)}`;

  before(async function () {
    chromiumOrSkip(this);
    stack = await startStack({ env: { POINT_RETENTION: '1y' } });
    browser = await launchBrowser();
    page = browser.page;
    // Logged in as the log-in form leaves it (the form waits for a devices list, and this service has no device).
    await page.goto(`${stack.baseUrl}/console`);
    await page.evaluate(`sessionStorage.setItem('openpie.adminToken', ${JSON.stringify(stack.server.adminToken)})`);
    await page.goto(`${stack.baseUrl}/console#/projects`);
    await page.locator('#retention').waitFor();
    await page.fill('#retention-project', projectid);
  });
  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const resultText = async () => (await page.locator('#retention-result').textContent()) ?? '';
  const stored = async () => (await stack.admin('GET', `/v2/admin/projects/${projectid}/retention`)).body.retention;

  it('shows the service default for a project without a retention of its own', async () => {
    await page.click('#retention-show');

    await page.locator('#retention-result', { hasText: 'service default' }).waitFor();
    expect(await resultText()).to.contain('1y');
  });

  it('sets a retention, and says what is wrong with a duration that is not one, changing nothing', async () => {
    await page.fill('#retention-duration', '30d');
    await page.click('#retention-set');
    await page.locator('#retention-result', { hasText: 'its own, 30d' }).waitFor();
    expect(await stored()).to.equal('30d');

    await page.fill('#retention-duration', 'a month');
    await page.click('#retention-set');

    await page.locator('#retention-error', { hasText: 'INVALID_BODY' }).waitFor();
    expect(await stored()).to.equal('30d');
  });

  it('goes back to the service default', async () => {
    await page.click('#retention-clear');

    await page.locator('#retention-result', { hasText: 'service default' }).waitFor();
    expect(await stored()).to.equal(null);
    expect(browser.pageErrors.filter((e) => !expectedRefusal(e, [400]))).to.deep.equal([]);
  });
});

import { expect } from 'chai';
import type { Page, Response } from 'playwright-core';
import { aDevice, TestDevice } from '../../helpers/devices';
import { CHROMIUM_PATH, chromiumAvailable, launchBrowser, logInToConsole, TestBrowser } from '../../helpers/browser';
import { Stack, startStack } from '../../helpers/stack';

/**
 * Issue 24 §4: the console in normal use asks nothing the service answers with a 4xx, which the browser would log
 * as an error: every view, a device without a schema (the usual case) and one with a schema.
 */
describe('the console in normal use: no request answered 4xx, no console error', function () {
  this.timeout(60_000);
  let stack: Stack;
  let browser: TestBrowser;
  let page: Page;
  let plain: TestDevice;
  let withSchema: TestDevice;
  const refused: string[] = [];

  before(async function () {
    if (!chromiumAvailable()) {
      console.log(`    skipped: ${CHROMIUM_PATH} is missing`);
      this.skip();
    }
    stack = await startStack();
    plain = await aDevice(stack, { alias: 'plain' });
    withSchema = await aDevice(stack, { projectid: plain.projectid, groupid: plain.groupid, alias: 'with-schema' });
    const put = await stack.admin('PUT', `/v2/admin/devices/${withSchema.deviceid}/schema`, {
      body: { additionalProperties: true, properties: { temp: { operation: { transform: { expression: '$.temp' } } } } },
    });
    expect(put.status, put.text).to.equal(200);
    browser = await launchBrowser();
    page = browser.page;
    page.on('response', (res: Response) => {
      if (res.status() >= 400) refused.push(`${res.status()} ${res.request().method()} ${res.url()}`);
    });
    await logInToConsole(page, stack);
  });
  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('opens a device without a schema of its own, saying so', async () => {
    await page.goto(`${stack.baseUrl}/console#/device/${plain.deviceid}`);

    await page.locator('#schema-none').waitFor();
  });

  it('opens a device with a schema, showing it', async () => {
    await page.goto(`${stack.baseUrl}/console#/device/${withSchema.deviceid}`);

    await page.locator('#schema-json').waitFor();
    expect(await page.locator('#schema-json').textContent()).to.contain('$.temp');
  });

  for (const view of ['#/projects', `#/devices/${'{project}'}`, '#/new-device', '#/import', '#/applications', '#/audit', `#/messages/{project}/{group}`]) {
    it(`opens ${view}`, async () => {
      await page.goto(`${stack.baseUrl}/console${view.replace('{project}', plain.projectid).replace('{group}', plain.groupid)}`);

      await page.locator('main h1').first().waitFor();
      await page.waitForLoadState('networkidle').catch(() => undefined);
    });
  }

  it('was answered no 4xx and logged no error', () => {
    expect(refused).to.deep.equal([]);
    expect(browser.pageErrors).to.deep.equal([]);
  });
});

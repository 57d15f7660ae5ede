import { expect } from 'chai';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromiumAvailable, CHROMIUM_PATH, launchBrowser, TestBrowser } from '../../helpers/browser';
import { Stack, startStack } from '../../helpers/stack';

/**
 * Issue 20 §6: the pages where a person pastes a credential (/trial, the console) carry a CSP that refuses framing,
 * X-Frame-Options DENY, nosniff and no Referer; /trial keeps what is pasted for the page's life only.
 */
describe('/trial and the console: framing, CSP, and credentials for the page\'s life only', function () {
  this.timeout(60_000);
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  for (const path of ['/trial', '/trial/', '/trial/trial.js', '/trial/swagger-ui-bundle.js', '/console', '/console/app.js']) {
    it(`GET ${path}: CSP with frame-ancestors 'none', X-Frame-Options DENY, nosniff, no Referer`, async () => {
      const res = await stack.http('GET', path);

      expect(res.status).to.equal(200);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).to.include("frame-ancestors 'none'").and.include("default-src 'none'").and.include("script-src 'self'");
      expect(csp).to.not.match(/script-src[^;]*unsafe/);
      expect(res.headers.get('x-frame-options')).to.equal('DENY');
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(res.headers.get('referrer-policy')).to.equal('no-referrer');
    });
  }

  it('tells Swagger UI not to keep authorizations in localStorage', async () => {
    const res = await stack.http('GET', '/trial/trial.js');

    expect(res.text).to.contain('persistAuthorization: false');
  });

  describe('in headless Chromium', () => {
    let browser: TestBrowser;
    let framer: Server;
    before(async function () {
      if (!chromiumAvailable()) {
        console.log(`    skipped: ${CHROMIUM_PATH} is missing`);
        this.skip();
      }
      browser = await launchBrowser();
      // Another origin (another port) that frames the pages.
      framer = createServer((req, res) => {
        res.setHeader('content-type', 'text/html');
        res.end(`<iframe id="f" src="${stack.baseUrl}${req.url}"></iframe>`);
      });
      await new Promise<void>((resolve) => framer.listen(0, '127.0.0.1', resolve));
    });
    after(async () => {
      await browser?.close();
      framer?.close();
    });

    it('runs Swagger UI under its CSP without a violation, and forgets a pasted credential on reload', async () => {
      const { page, pageErrors } = browser;
      const secret = `Device 00000000-0000-4000-8000-000000000000:${'s'.repeat(32)}`;
      await page.goto(`${stack.baseUrl}/trial`);
      await page.locator('.swagger-ui .info .title').waitFor();
      // As the Authorize dialog does (swagger-ui's authActions.authorize, which persistAuthorization would save).
      await page.evaluate(`window.ui.preauthorizeApiKey('DeviceAuth', ${JSON.stringify(secret)})`);
      const held = await page.evaluate<string>('JSON.stringify(window.ui.authSelectors.authorized().toJS())');
      const stored = await page.evaluate<string>('JSON.stringify({ ...localStorage }) + document.cookie');
      await page.reload();
      await page.locator('.swagger-ui .info .title').waitFor();
      const afterReload = await page.evaluate<string>('JSON.stringify(window.ui.authSelectors.authorized().toJS())');

      expect(pageErrors.filter((e) => /Content Security Policy|Refused to/.test(e))).to.deep.equal([]);
      expect(held).to.include('ssssssss');
      expect(stored).to.not.include('ssssssss');
      expect(afterReload).to.equal('{}');
    });

    for (const path of ['/trial', '/console']) {
      it(`refuses to be framed by another origin: ${path}`, async () => {
        const { page } = browser;
        await page.goto(`http://127.0.0.1:${(framer.address() as AddressInfo).port}${path}`);
        await page.waitForTimeout(500);

        // Chromium shows its own error page in the frame instead of the page.
        const frame = page.frames().find((f) => f !== page.mainFrame());
        expect(frame).to.not.equal(undefined);
        expect(await frame!.locator('#swagger-ui, #login-form').count()).to.equal(0);
      });
    }
  });
});

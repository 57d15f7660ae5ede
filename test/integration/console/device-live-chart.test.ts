import { expect } from 'chai';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { aDevice, TestDevice } from '../../helpers/devices';
import { chromiumOrSkip, isPng, launchBrowser, logInToConsole, TestBrowser } from '../../helpers/browser';
import { asDevice } from '../../helpers/rest-device';
import { Stack, startStack } from '../../helpers/stack';

/** What the chart's figure says it drew, per field (history-panel.js: `data-series`). */
interface SeriesFacts {
  field: string;
  count: number;
  gaps: number;
  min?: number;
  max?: number;
  last?: number;
}

/**
 * Waits until `check` holds, asking every 100 ms (page.waitForFunction would evaluate its predicate in the page,
 * where the page's CSP refuses eval).
 */
async function eventually(check: () => Promise<boolean>, what: string, ms = 10_000) {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((resolve) => setTimeout(resolve, 100))) {
    if (await check()) return;
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * Ten points a second apart, a silence of 20 s (the device was off), then ten more up to a second ago: two fields,
 * written through the REST batch endpoint with times relative to now (`ts` < 0).
 */
const SECONDS = [...Array.from({ length: 10 }, (_, i) => -40 + i), ...Array.from({ length: 10 }, (_, i) => -10 + i)];

/**
 * Issue 24 §1: the device page as a live instrument, in headless Chromium against a whole service: a table of the
 * latest values, a uPlot chart of several fields on a range fitted to the device's points, a gap where it was silent,
 * and new points written over REST appearing without a reload.
 */
describe('the device page: latest values and a live chart, in headless Chromium', function () {
  this.timeout(60_000);
  let stack: Stack;
  let browser: TestBrowser;
  let page: Page;
  let meter: TestDevice;

  const series = async (): Promise<SeriesFacts[]> => JSON.parse((await page.locator('#chart-figure').getAttribute('data-series')) ?? '[]');
  const facts = async (field: string) => (await series()).find((s) => s.field === field);
  const pageWidth = () => page.evaluate<number>('document.documentElement.scrollWidth');

  before(async function () {
    chromiumOrSkip(this);
    stack = await startStack();
    meter = await aDevice(stack, { alias: 'meter' });
    const batch = SECONDS.map((s, i) => ({ data: { temp: 20 + (i % 5), hum: 50 - i, env: { lux: 300 + i } }, ts: s * 1000 }));
    const written = await asDevice(stack, meter)('PUT', '/v2/device/shadow/batch', { body: { batch } });
    expect(written.status, written.text).to.equal(200);
    await asDevice(stack, meter)('PUT', '/v2/device/shadow/data', { body: { data: { mode: 'eco' } } });
    browser = await launchBrowser();
    page = browser.page;
    await logInToConsole(page, stack);
    await page.goto(`${stack.baseUrl}/console#/device/${meter.deviceid}`);
  });

  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('shows the latest value of every field, nested ones by their dotted path', async () => {
    await page.locator('#latest-values tbody tr').first().waitFor();
    const rows = await page.locator('#latest-values tbody tr').evaluateAll((trs) =>
      trs.map((tr) => [tr.getAttribute('data-field'), tr.querySelector('td.value')?.textContent]));
    expect(rows).to.deep.equal([['env.lux', '319'], ['hum', '31'], ['mode', 'eco'], ['temp', '24']]);
  });

  it('opens on a range fitted to the points, charting several fields with uPlot, a gap where the device was silent', async () => {
    await page.locator('#chart-figure[data-state="drawn"]').waitFor();
    expect(await page.locator('#chart-range').inputValue()).to.equal('fit');
    expect(await page.locator('#chart-figure').getAttribute('data-live')).to.equal('true');
    // One bucket a second (automatic sampling of a minute): one point each, and one gap of 20 s in each field.
    const drawn = await series();
    expect(drawn.map((s) => s.field)).to.deep.equal(['env.lux', 'hum', 'temp']);
    for (const s of drawn) expect(s, s.field).to.deep.include({ count: SECONDS.length, gaps: 1 });
    expect(await facts('hum')).to.deep.include({ min: 31, max: 50, last: 31 });
    expect(await page.locator('#chart canvas').count()).to.equal(1);
    expect(await page.locator('#chart .u-legend').textContent()).to.include('temp').and.include('hum');
    expect(await page.locator('#chart-summary').textContent()).to.match(/avg per 1 second from .* to now\. env\.lux: 20 points.*1 gap/);
    expect(browser.pageErrors).to.deep.equal([]);
  });

  it('follows points written over REST without a reload', async () => {
    const before = (await facts('temp'))?.count ?? 0;
    const written = await asDevice(stack, meter)('PUT', '/v2/device/shadow/data', { body: { data: { temp: 99, hum: 12.5 } } });
    expect(written.status, written.text).to.equal(200);

    await eventually(async () => (await facts('temp'))?.last === 99, 'the new point on the chart');
    expect((await facts('temp'))?.count).to.equal(before + 1);
    expect(await facts('hum')).to.deep.include({ last: 12.5 });
    expect(await page.locator('#latest-values tr[data-field="temp"] td.value').textContent()).to.equal('99');
    expect(await page.locator('#latest-values tr[data-field="temp"]').getAttribute('class')).to.equal('changed');
    expect(browser.pageErrors).to.deep.equal([]);
    if (process.env.UPDATE_DOCS_IMAGES) {
      copyFileSync(await shotPath('device-page'), join(__dirname, '..', '..', '..', 'docs', 'images', 'console-device.png'));
    }
  });

  it('charts only the fields ticked, and draws raw points on request', async () => {
    await page.locator('#chart-fields input[value="env.lux"]').uncheck();
    await eventually(async () => (await facts('env.lux')) === undefined, 'env.lux gone from the chart');
    await page.selectOption('#chart-aggregator', 'none');
    await page.locator('#chart-figure[data-aggregator="none"][data-state="drawn"]').waitFor();
    expect((await series()).map((s) => s.field)).to.deep.equal(['hum', 'temp']);
    expect(await facts('temp')).to.deep.include({ count: SECONDS.length + 1 });
    // The silence of 20 s, and maybe another: the point written live came more than 3 s after the batch's last.
    expect((await facts('temp'))?.gaps).to.be.within(1, 2);
  });

  it('keeps the page within a phone\'s width (375 px), the chart narrower and its legend wrapping', async () => {
    await page.setViewportSize({ width: 375, height: 740 });
    // The chart follows its box's width (a ResizeObserver), a frame or two after the window changed.
    const canvasRight = () => page.locator('#chart canvas').evaluate((c) => c.getBoundingClientRect().right);
    await eventually(async () => (await canvasRight()) <= 375, 'the chart within 375 px');
    expect(await pageWidth()).to.be.at.most(375);
    expect(isPng(await browser.screenshot('device-phone'))).to.equal(true);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  /** A screenshot of the page, for docs/images when UPDATE_DOCS_IMAGES is set. */
  async function shotPath(name: string) {
    expect(isPng(await browser.screenshot(name))).to.equal(true);
    return join(browser.screenshotDir, `${name}.png`);
  }
});

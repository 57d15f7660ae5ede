import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrowserContext, chromium, Page } from 'playwright-core';

/**
 * Chromium logs every 4xx answer as a console error. Those a test caused on purpose are not faults of the page.
 */
export const expectedRefusal = (error: string, statuses: readonly number[]) =>
  new RegExp(`Failed to load resource: the server responded with a status of (${statuses.join('|')})\\b`).test(error);

/** Debian's chromium package (scripts/ensure-chromium.sh installs it); playwright-core never downloads a browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Headless on a machine whose only network is loopback: without the background-networking flags Chromium keeps
 * trying Google's hosts at start. `--no-sandbox` because tests run as root.
 */
const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Whether browser tests can run here. Outside CI a machine without Chromium skips them with a message; in CI
 * (CI set) a missing Chromium is an error, so the browser tests can never be skipped silently there.
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  if (process.env.CI) throw new Error(`${CHROMIUM_PATH} is missing: .ci/run must run scripts/ensure-chromium.sh before the tests`);
  return false;
}

/** A suite's `before`: skips it, saying why, when Chromium is missing outside CI (see chromiumAvailable). */
export function chromiumOrSkip(ctx: Mocha.Context): void {
  if (chromiumAvailable()) return;
  console.log(`    skipped: ${CHROMIUM_PATH} is missing (scripts/ensure-chromium.sh installs it; in CI these tests must run)`);
  ctx.skip();
}

/** Logs in to the console with the stack's admin token and waits for the devices list. */
export async function logInToConsole(page: Page, stack: { baseUrl: string; server: { adminToken: string } }): Promise<void> {
  await page.goto(`${stack.baseUrl}/console`);
  await page.fill('#admin-token', stack.server.adminToken);
  await page.click('#login-form button[type=submit]');
  await page.locator('table#devices').waitFor();
}

export interface TestBrowser {
  context: BrowserContext;
  page: Page;
  /** Script errors and console errors of the page, CSP violations included ("Refused to …"). */
  pageErrors: string[];
  /** Saves a full-page PNG into the run's screenshot folder and returns its bytes. */
  screenshot(name: string): Promise<Buffer>;
  screenshotDir: string;
  close(): Promise<void>;
}

/**
 * Headless Chromium with a fresh profile (`--user-data-dir` in a new temporary folder) and one page. Screenshots go
 * to a temporary folder, removed at the end unless KEEP_SCREENSHOTS is set (then its path is printed).
 */
export async function launchBrowser(): Promise<TestBrowser> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'openpie-chromium-'));
  const screenshotDir = mkdtempSync(join(tmpdir(), 'openpie-screens-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1280, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const pageErrors: string[] = [];
  page.on('pageerror', (err) => pageErrors.push(`pageerror: ${err.message}`));
  page.on('console', (message) => {
    // The URL says which request a "Failed to load resource" was about, so a test can expect one 404 and no other.
    if (message.type() === 'error') pageErrors.push(`console: ${message.text()} ${message.location().url ?? ''}`.trim());
  });
  return {
    context,
    page,
    pageErrors,
    screenshotDir,
    async screenshot(name) {
      const path = join(screenshotDir, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return readFileSync(path);
    },
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
      if (process.env.KEEP_SCREENSHOTS) console.log(`    screenshots kept in ${screenshotDir}`);
      else rmSync(screenshotDir, { recursive: true, force: true });
    },
  };
}

/** The PNG file signature (PNG spec §5.2). */
export const isPng = (bytes: Buffer) => bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));

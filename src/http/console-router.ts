import Router from '@koa/router';
import type { Context } from 'koa';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { AppError } from '../core/errors';
import { setPageHeaders } from './page-headers';

/** The types of the files the console is made of; any other file of its folder is never served. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * The two libraries the console runs, served from their installed packages (no CDN: the page's CSP allows its own
 * origin only, and the service must work offline): uPlot draws the device chart, mqtt.js is the in-console MQTT client
 * (issue 24 §1, §3). Only these names are served, so no request reaches another file of node_modules.
 */
const VENDOR_FILES: Readonly<Record<string, { pkg: string; file: string }>> = {
  'uPlot.esm.js': { pkg: 'uplot', file: 'dist/uPlot.esm.js' },
  'uPlot.min.css': { pkg: 'uplot', file: 'dist/uPlot.min.css' },
  'mqtt.esm.js': { pkg: 'mqtt', file: 'dist/mqtt.esm.js' },
};

interface ConsoleFile {
  body: Buffer;
  type: string;
  etag: string;
}

/**
 * The console's static files live in src/console/web (plain ES modules, no build step). Found by walking up from
 * here, so the same code finds them when run from src (tsx) and from dist (tsc does not copy .js or .html files).
 */
export function consoleWebDir(from = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'src', 'console', 'web');
    if (existsSync(join(candidate, 'index.html'))) return candidate;
    if (dirname(dir) === dir) throw new Error(`console files (src/console/web) not found above ${from}`);
  }
}

/** Reads the console once at start: a few small files, served from memory with a content hash as ETag. */
function loadConsoleFiles(dir: string): Map<string, ConsoleFile> {
  const files = new Map<string, ConsoleFile>();
  for (const name of readdirSync(dir)) {
    const type = CONTENT_TYPES[extname(name)];
    if (type === undefined) continue;
    const body = readFileSync(join(dir, name));
    files.set(name, { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` });
  }
  return files;
}

/** The libraries of VENDOR_FILES, read once at start like the console's own files, under `vendor/<name>`. */
function loadVendorFiles(files: Map<string, ConsoleFile>): void {
  for (const [name, { pkg, file }] of Object.entries(VENDOR_FILES)) {
    // By the package's folder: mqtt's `exports` map does not export its dist files.
    const body = readFileSync(join(dirname(require.resolve(`${pkg}/package.json`)), file));
    const type = CONTENT_TYPES[extname(name)];
    files.set(`vendor/${name}`, { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` });
  }
}

/** The web console (issue 6 §2) at /console: its page and its static files, under a strict CSP. */
export function consoleRouter(dir = consoleWebDir()): Router {
  const router = new Router();
  const files = loadConsoleFiles(dir);
  loadVendorFiles(files);

  const serve = (ctx: Context, name: string) => {
    const file = files.get(name);
    if (!file) throw new AppError('ROUTE_NOT_FOUND', `no console file ${name}`);
    setPageHeaders(ctx);
    // Revalidated on every load (cheap: a 304 by ETag), so an upgraded service never runs a stale mix of modules.
    ctx.set('Cache-Control', 'no-cache');
    ctx.etag = file.etag;
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.type = file.type;
    ctx.body = file.body;
  };

  // Also answers /console/ (the router ignores one trailing slash); the page uses absolute URLs, so both work.
  router.get('/console', (ctx) => serve(ctx, 'index.html'));
  router.get('/console/:file', (ctx) => serve(ctx, ctx.params.file));
  router.get('/console/vendor/:file', (ctx) => serve(ctx, `vendor/${ctx.params.file}`));
  return router;
}

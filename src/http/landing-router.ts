import Router from '@koa/router';
import type { Context } from 'koa';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { version } from '../../package.json';
import { AppError } from '../core/errors';

/** Where the first hour starts (issue 13 §3): the page every other link hangs from. */
export const LANDING_LINKS = {
  console: '/console',
  trial: '/trial',
  openapi: '/openapi.json',
  docs: '/docs/',
  deviceApi: '/v2/device',
  dataStore: '/v2/feed/api/v1',
  health: '/healthz',
  readiness: '/readyz',
} as const;

/** The landing page and the docs index are plain HTML: no script, no style, nothing from elsewhere. */
const PAGE_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

function page(title: string, body: string): string {
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>` +
    `<meta name="viewport" content="width=device-width, initial-scale=1"></head>\n<body>\n${body}\n</body></html>\n`;
}

/**
 * The reference in Markdown: README.md and docs/*.md, found by walking up from here (src when run with tsx, dist when
 * built; the Dockerfile copies both beside dist). Read once at start; no other file is ever served.
 */
function readDocs(from = __dirname): Map<string, string> {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'docs', 'data-store.md')) && existsSync(join(dir, 'README.md'))) {
      const files = new Map([['README.md', readFileSync(join(dir, 'README.md'), 'utf8')]]);
      for (const name of readdirSync(join(dir, 'docs')).filter((n) => n.endsWith('.md')).sort()) {
        files.set(name, readFileSync(join(dir, 'docs', name), 'utf8'));
      }
      return files;
    }
    if (dirname(dir) === dir) return new Map();
  }
}

const firstHeading = (markdown: string) => /^#\s+(.+)$/m.exec(markdown)?.[1] ?? '';

const LANDING_HTML = page('openpie', [
  '<h1>openpie</h1>',
  '<p>A NETPIE-2020-compatible device messaging, shadow and time-series service.</p>',
  '<ul>',
  '<li><a href="/console">Web console</a>: devices, shadows, history, group messages (log in with the admin token)</li>',
  '<li><a href="/trial">Trial explorer</a>: try every call of the HTTP API</li>',
  '<li><a href="/openapi.json">OpenAPI document</a> of the HTTP API</li>',
  '<li><a href="/docs/">Documentation</a>: the README and the reference</li>',
  '<li><a href="/healthz">/healthz</a> and <a href="/readyz">/readyz</a></li>',
  '</ul>',
  '<p>Device API: <code>/v2/device</code>. Data store (KairosDB format): <code>/v2/feed/api/v1</code>. Admin API: <code>/v2/admin</code>.</p>',
].join('\n'));

const html = (ctx: Context, body: string) => {
  ctx.set('Content-Security-Policy', PAGE_CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = body;
};

/**
 * GET / (HTML for browsers, JSON for API clients: curl sends `Accept: *\/*`) and the docs as text at /docs/.
 */
export function landingRouter(): Router {
  const router = new Router();
  const docs = readDocs();
  const docsIndex = page('openpie documentation', [
    '<h1>openpie documentation</h1>',
    '<ul>',
    ...[...docs].map(([name, text]) => `<li><a href="/docs/${name}">${name}</a>: ${escapeHtml(firstHeading(text))}</li>`),
    '</ul>',
    '<p><a href="/">Back</a></p>',
  ].join('\n'));

  router.get('/', (ctx) => {
    if (ctx.accepts('json', 'html') === 'html') {
      html(ctx, LANDING_HTML);
      return;
    }
    ctx.body = { service: 'openpie', version, links: LANDING_LINKS };
  });

  // Also answers /docs (the router ignores one trailing slash).
  router.get('/docs', (ctx) => html(ctx, docsIndex));

  router.get('/docs/:file', (ctx) => {
    const text = docs.get(ctx.params.file);
    if (text === undefined) throw new AppError('ROUTE_NOT_FOUND', `no document ${ctx.params.file}; the list is at /docs/`);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = text;
  });

  return router;
}

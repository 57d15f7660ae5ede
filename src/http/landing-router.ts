import Router from '@koa/router';
import type { Context } from 'koa';
import { version } from '../../package.json';
import { AppError } from '../core/errors';
import { ReadinessCheck } from '../health/port';
import { checkReadiness } from '../health/readiness';
import { renderLandingPage, ServiceFacts } from './pages/landing-page';
import { readDocs, renderDocs, renderDocsIndex } from './pages/markdown-docs';
import { PAGES_CSS_PATH } from './pages/page-layout';
import { PAGES_CSS } from './pages/pages-css';
import { setPageHeaders } from './page-headers';

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
  metrics: '/metrics',
} as const;

/** Every field is optional: the page shows what it is given (createApp passes its deps). */
export interface LandingRouterDeps {
  /** The checks /readyz runs (ops-router.ts); the page shows their outcome. */
  readiness?: readonly ReadinessCheck[];
  /** Only whether it is set: the page says /metrics needs it. */
  metricsToken?: string;
  /** The port devices connect to over MQTT, once the broker listens. */
  mqttPort?: () => number;
  /** Node id, store, time-series engine and every listener, from the composition root. */
  serviceFacts?: () => ServiceFacts | undefined;
}

/** The pages' stylesheet changes only with a new release: browsers keep it an hour. */
const STYLESHEET_MAX_AGE_S = 3600;

const sendHtml = (ctx: Context, body: string) => {
  setPageHeaders(ctx);
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = body;
};

/** The listeners when the composition does not name them: this request's HTTP port, MQTT, and MQTT over WebSocket on it. */
function knownListeners(ctx: Context, mqttPort: (() => number) | undefined) {
  const http = ctx.socket.localPort ?? 0;
  return [
    { name: ctx.protocol === 'https' ? 'HTTPS' : 'HTTP', port: http },
    ...(mqttPort ? [{ name: 'MQTT', port: mqttPort() }] : []),
    { name: 'MQTT over WebSocket (/mqtt)', port: http },
  ];
}

/**
 * GET / (HTML for browsers, JSON for API clients: curl sends `Accept: *\/*`) and the docs at /docs/: each document
 * as a page for browsers and as its Markdown source for anything else (issue 24 §4).
 */
export function landingRouter(deps: LandingRouterDeps = {}): Router {
  const router = new Router();
  const docs = renderDocs(readDocs());
  const docsIndex = renderDocsIndex(docs);

  router.get('/', async (ctx) => {
    ctx.vary('Accept');
    if (ctx.accepts('json', 'html') !== 'html') {
      ctx.body = { service: 'openpie', version, links: LANDING_LINKS };
      return;
    }
    const service = deps.serviceFacts?.();
    ctx.set('Cache-Control', 'no-cache');
    sendHtml(ctx, renderLandingPage({
      version,
      service,
      listeners: service?.listeners.length ? service.listeners : knownListeners(ctx, deps.mqttPort),
      health: await checkReadiness(deps.readiness ?? []),
      metricsNeedToken: deps.metricsToken !== undefined,
    }));
  });

  // Also answers /docs (the router ignores one trailing slash).
  router.get('/docs', (ctx) => sendHtml(ctx, docsIndex));

  // One folder deep too: docs/works-with/*.md.
  router.get(['/docs/:file', '/docs/:folder/:file'], (ctx) => {
    const file = ctx.params.folder === undefined ? ctx.params.file : `${ctx.params.folder}/${ctx.params.file}`;
    if (`/docs/${file}` === PAGES_CSS_PATH) {
      setPageHeaders(ctx);
      ctx.set('Cache-Control', `public, max-age=${STYLESHEET_MAX_AGE_S}`);
      ctx.type = 'text/css; charset=utf-8';
      ctx.body = PAGES_CSS;
      return;
    }
    const doc = docs.get(file);
    if (doc === undefined) throw new AppError('ROUTE_NOT_FOUND', `no document ${file}; the list is at /docs/`);
    ctx.vary('Accept');
    // A browser asks for HTML first; curl (`*/*`) and scripts get the Markdown source, as before the pages existed.
    if (ctx.accepts('text/plain', 'html') === 'html') {
      sendHtml(ctx, doc.html);
      return;
    }
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = doc.markdown;
  });

  return router;
}

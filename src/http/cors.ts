import type { Middleware } from 'koa';

/** Every method of the API; a preflight asks for one, and the answer names them all so browsers may cache it. */
const METHODS = 'GET, HEAD, PUT, POST, PATCH, DELETE';
/**
 * Headers a page may read besides the CORS-safelisted ones: the request id of every answer, the wait of a 429, a
 * shadow's revision to send back in If-Match (docs/device-api.md "Conditional writes"), the roll-up tier that
 * answered a query (docs/data-store.md "Roll-ups").
 */
const EXPOSED = 'X-Request-Id, Retry-After, ETag, X-Openpie-Rollup';
/** How long a browser may keep a preflight's answer (KairosDB says a day too, reference §1). */
const MAX_AGE_S = 86_400;

/**
 * CORS for the origins of CORS_ORIGINS (`*`: any), so that browser pages of other origins, such as Grafana's
 * KairosDB data source in browser access mode or a web dashboard, can call the API. Other origins get no CORS header,
 * so their browsers keep the answer from the page (the request itself is answered as usual).
 *
 * - A preflight (OPTIONS with Origin and Access-Control-Request-Method, fetch spec §4.8) from an allowed origin is
 *   answered here, 204, whatever the path: it names the methods, echoes the headers asked for (Grafana adds its
 *   own `X-Grafana-*`), and allows credentials, since Grafana sends `withCredentials` with Basic auth.
 * - Other answers to an allowed origin, errors included, carry the origin itself (never `*`, which browsers refuse
 *   with credentials). Credentials travel in the Authorization header, never in cookies, so an allowed page can only
 *   use credentials its user gave it.
 */
export function cors(origins: readonly string[]): Middleware {
  const allows = originsAllowed(origins);
  // Not async: a request without an allowed Origin (every device's) passes through without a promise of its own.
  return (ctx, next) => {
    const origin = ctx.get('origin');
    if (!allows(origin)) return next();
    const requestedMethod = ctx.get('access-control-request-method');
    const preflight = ctx.method === 'OPTIONS' && requestedMethod !== '';
    for (const [name, value] of Object.entries(preflight ? originHeaders(origin) : corsAnswerHeaders(origin))) {
      if (name === 'Vary') ctx.vary(value);
      else ctx.set(name, value);
    }
    if (!preflight) return next();
    ctx.vary('Access-Control-Request-Method');
    ctx.vary('Access-Control-Request-Headers');
    ctx.set('Access-Control-Allow-Methods', METHODS);
    const requestedHeaders = ctx.get('access-control-request-headers');
    if (requestedHeaders !== '') ctx.set('Access-Control-Allow-Headers', requestedHeaders);
    ctx.set('Access-Control-Max-Age', String(MAX_AGE_S));
    ctx.status = 204;
  };
}

/** Whether an Origin header names an origin of CORS_ORIGINS (`*`: any); never an absent one. */
export function originsAllowed(origins: readonly string[]): (origin: string | undefined) => origin is string {
  const any = origins.includes('*');
  const allowed = new Set(origins);
  return (origin): origin is string => origin !== undefined && origin !== '' && (any || allowed.has(origin));
}

/** What every CORS answer to an allowed origin carries, a preflight's too. */
const originHeaders = (origin: string): Record<string, string> => ({
  Vary: 'Origin',
  'Access-Control-Allow-Origin': origin,
  'Access-Control-Allow-Credentials': 'true',
});

/** The headers of an answer (not a preflight's) to an allowed origin; device-lane.ts sets them outside Koa too. */
export const corsAnswerHeaders = (origin: string): Record<string, string> => ({
  ...originHeaders(origin),
  'Access-Control-Expose-Headers': EXPOSED,
});

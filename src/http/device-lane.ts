import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { Logger } from 'pino';
import { AppError, errorBodyOf } from '../core/errors';
import { Admission } from '../devices/admission';
import { ServiceMetrics } from '../metrics/service-metrics';
import { armBodyDeadline } from './body-deadline';
import { corsAnswerHeaders, originsAllowed } from './cors';
import { credentialsOf } from './device-auth';
import { LANE_PATHS, LaneCall, LaneRoute, laneRoutes, LaneRoutesDeps } from './device-lane-routes';
import { requestIdOf } from './error-middleware';

export interface DeviceLaneDeps extends LaneRoutesDeps {
  admission: Admission;
  logger: Logger;
  metrics: Pick<ServiceMetrics, 'http'>;
  corsOrigins: readonly string[];
  limits: { readonly httpBodyTimeoutMs: number };
}

/** The Device API is mounted at /v2/device and /device (netpie reference §1). */
const PREFIXES = ['/v2/device/', '/device/'];

/** The lane's operations as `METHOD /path` in @koa/router's syntax, HEAD left out (the OpenAPI test lists them with Koa's). */
export const laneOperations = (): string[] =>
  PREFIXES.flatMap((prefix) =>
    Object.entries(LANE_PATHS).flatMap(([name, { methods, topic }]) =>
      methods.filter((m) => m !== 'HEAD').flatMap((m) => [`${m} ${prefix}${name}`, ...(topic ? [`${m} ${prefix}${name}/*topic`] : [])]),
    ),
  );
const JSON_TYPE = 'application/json; charset=utf-8';

/** A segment as @koa/router decodes a path parameter: kept as sent when it is not valid percent-encoding. */
function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The route a path names, with the topic its tail names; undefined for paths the lane does not serve. */
function routeOf(routes: Map<string, LaneRoute>, path: string): { route: LaneRoute; template: string; pathTopic?: string } | undefined {
  const prefix = PREFIXES.find((p) => path.startsWith(p));
  if (prefix === undefined) return undefined;
  const tail = path.slice(prefix.length);
  const slash = tail.indexOf('/');
  const name = slash < 0 ? tail : tail.slice(0, slash);
  const route = routes.get(name);
  if (!route) return undefined;
  const rest = slash < 0 ? '' : tail.slice(slash + 1);
  // The template labels the request metrics as @koa/router's route paths did: `/v2/device/message/*topic`.
  if (!route.topic) return rest === '' ? { route, template: `${prefix}${name}` } : undefined;
  if (rest === '') return { route, template: `${prefix}${name}` };
  return { route, template: `${prefix}${name}/*topic`, pathTopic: rest.split('/').map(decodeSegment).join('/') };
}

/**
 * The Device API's busiest routes (status and publishing, device-lane-routes.ts), served on Node's request without
 * Koa, its router and its middleware chain, which cost more CPU than the calls themselves (issue 26 §3,
 * docs/operations.md "Performance"). Every rule is the one the Koa app uses, called from the same place: the door
 * (devices/admission.ts: credentials, rate limit, API-call metering), the error table (core/errors.ts) with the
 * request id, `Retry-After` and the internal-error log line, CORS answers (cors.ts), the body deadline
 * (body-deadline.ts), the request metrics and the debug request log. Returns false for every other request, which the
 * Koa app serves, and for CORS preflights, which cors.ts answers.
 */
export function createDeviceLane(deps: DeviceLaneDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { admission, logger, metrics } = deps;
  const routes = laneRoutes(deps);
  const allowedOrigin = originsAllowed(deps.corsOrigins);

  return (req, res) => {
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt < 0 ? url : url.slice(0, queryAt);
    const found = routeOf(routes, path);
    if (!found) return false;
    const { route, template, pathTopic } = found;
    const origin = req.headers.origin;
    const method = req.method ?? 'GET';
    if (method === 'OPTIONS' && allowedOrigin(origin) && req.headers['access-control-request-method'] !== undefined) return false;

    const started = performance.now();
    const requestId = requestIdOf(req.headers['x-request-id'] as string | undefined);
    const send = (status: number, body: string, contentType: string, extra?: Record<string, string>) => {
      res.statusCode = status;
      res.setHeader('X-Request-Id', requestId);
      if (allowedOrigin(origin)) for (const [name, value] of Object.entries(corsAnswerHeaders(origin))) res.setHeader(name, value);
      if (extra) for (const [name, value] of Object.entries(extra)) res.setHeader(name, value);
      res.setHeader('Content-Type', contentType);
      res.setHeader('Content-Length', Buffer.byteLength(body));
      res.end(body);
      const seconds = (performance.now() - started) / 1000;
      metrics.http.observe(`${method} ${status} ${template}`, () => ({ method, route: template, status: String(status) }), seconds);
      if (logger.isLevelEnabled('debug')) logger.child({ requestId }).debug({ method, path, status, ms: seconds * 1000 }, 'request');
    };
    const fail = (err: unknown) => {
      if (res.headersSent) return void logger.child({ requestId }).error({ err, method, path }, 'request failed after its answer');
      const body = errorBodyOf(err, (internal) => logger.child({ requestId }).error({ err: internal, method, path }, 'request failed'));
      const retryAfter = err instanceof AppError && typeof err.extra.retryAfter === 'number' ? { 'Retry-After': String(err.extra.retryAfter) } : undefined;
      send(body.status, JSON.stringify({ ...body, requestId }), JSON_TYPE, retryAfter);
    };

    // As @koa/router's allowedMethods: OPTIONS names the methods, any other method is 405.
    if (method === 'OPTIONS') return send(200, '', 'text/plain; charset=utf-8', { Allow: route.methods.join(', ') }), true;
    if (!route.methods.includes(method)) return fail(new AppError('METHOD_NOT_ALLOWED', 'method not allowed on this path')), true;

    const bodyDeadline = armBodyDeadline(req, res, deps.limits.httpBodyTimeoutMs);
    let reply: string | undefined;
    (async () => {
      const caller = await admission.call('http', req.socket.remoteAddress ?? '', credentialsOf(req.headers.authorization));
      const call: LaneCall = { caller, req, query: parseQuery(queryAt < 0 ? '' : url.slice(queryAt + 1)), pathTopic, bodyDeadline };
      // The reply is serialized once, inside the metered call, so its size is charged as it is sent.
      const requestBytes = Number(req.headers['content-length']) || 0;
      await admission.metered(caller, requestBytes, async () => void (reply = JSON.stringify(await route.serve(call))), () =>
        reply === undefined ? 0 : Buffer.byteLength(reply),
      );
      send(200, reply!, JSON_TYPE);
    })().catch(fail);
    return true;
  };
}

import type { RouterContext } from '@koa/router';
import type { Context, Middleware } from 'koa';
import { ServiceMetrics } from '../metrics/service-metrics';

/** The label of requests no route matched: raw paths would let any client create new series at will. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * The template (`/v2/device/message/*topic`) of the route @koa/router matched by path and method, never the raw
 * URL. Taken from `ctx.matched` rather than `_matchedRoute`, which names the auth middleware's pattern when that
 * middleware refuses the request before the route runs.
 */
function routeOf(ctx: Context): string {
  const matched = (ctx as Context & Pick<RouterContext, 'matched'>).matched ?? [];
  const route = matched.findLast((layer) => layer.methods.includes(ctx.method));
  return typeof route?.path === 'string' ? route.path : UNMATCHED_ROUTE;
}

/**
 * Counts and times every HTTP request by method, route template and status. Mounted outside the error middleware,
 * so it sees the status the client gets, errors included.
 */
export function httpMetrics(metrics: Pick<ServiceMetrics, 'http'>): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const { method, status } = ctx;
      const route = routeOf(ctx);
      metrics.http.observe(`${method} ${status} ${route}`, () => ({ method, route, status: String(status) }), (performance.now() - started) / 1000);
    }
  };
}

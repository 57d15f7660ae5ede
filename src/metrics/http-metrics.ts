import type { RouterContext } from '@koa/router';
import type { Context, Middleware } from 'koa';
import { ServiceMetrics } from './service-metrics';

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
export function httpMetrics(metrics: Pick<ServiceMetrics, 'httpRequests' | 'httpDuration'>): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const labels = { method: ctx.method, route: routeOf(ctx), status: String(ctx.status) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    }
  };
}

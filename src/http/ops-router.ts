import Router from '@koa/router';
import type { Middleware } from 'koa';
import { secretsEqual } from '../devices/credentials';
import { AppError } from '../core/errors';
import { ReadinessCheck } from '../health/port';
import { checkReadiness } from '../health/readiness';
import { ServiceMetrics } from '../metrics/service-metrics';
import { requestLog } from './error-middleware';

export interface OpsRouterDeps {
  readiness: readonly ReadinessCheck[];
  metrics: Pick<ServiceMetrics, 'registry'>;
  /** When set, /metrics wants `Authorization: Bearer <METRICS_TOKEN>`; unset, it is open like /healthz. */
  metricsToken: string | undefined;
}

/** `Authorization: Bearer <METRICS_TOKEN>`, compared in constant time. */
function metricsAuth(token: string): Middleware {
  return async (ctx, next) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
    if (!match) throw new AppError('MISSING_CREDENTIALS', 'send Authorization: Bearer <METRICS_TOKEN>');
    if (!secretsEqual(match[1], token)) throw new AppError('INVALID_CREDENTIALS', 'wrong metrics token');
    await next();
  };
}

/**
 * Probes and metrics for operators (issue 6 §4). /healthz and /readyz need no credentials: load balancers and
 * Kubernetes call them, and they tell nothing beyond up or down and which backend is down.
 */
export function opsRouter({ readiness, metrics, metricsToken }: OpsRouterDeps): Router {
  const router = new Router();

  // The process answers: nothing else is checked, so a slow backend never gets a healthy process restarted.
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });

  router.get('/readyz', async (ctx) => {
    const report = await checkReadiness(readiness);
    const failed = Object.entries(report.checks).filter(([, r]) => r.status === 'fail');
    if (failed.length > 0) {
      requestLog(ctx).warn({ failed: Object.fromEntries(failed.map(([name, r]) => [name, r.error])) }, 'not ready');
    }
    ctx.status = report.ready ? 200 : 503;
    ctx.body = {
      status: report.ready ? 'ok' : 'unavailable',
      checks: Object.fromEntries(Object.entries(report.checks).map(([name, r]) => [name, { status: r.status, ms: r.ms }])),
    };
  });

  const metricsRoute: Middleware = async (ctx) => {
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  };
  if (metricsToken === undefined) router.get('/metrics', metricsRoute);
  else router.get('/metrics', metricsAuth(metricsToken), metricsRoute);

  return router;
}

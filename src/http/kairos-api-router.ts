import Router from '@koa/router';
import type { Middleware } from 'koa';
import { AppError } from '../core/errors';
import { parseJson } from '../core/json';
import { DeviceStore } from '../devices/port';
import { ReadinessCheck } from '../health/port';
import { checkReadiness } from '../health/readiness';
import { ServiceMetrics } from '../metrics/service-metrics';
import { deleteRangesOf } from '../timeseries/delete-ranges';
import { FEATURES } from '../timeseries/kairos-features';
import { PointRelay } from '../timeseries/outbox-relay';
import { DataQueries } from '../timeseries/data-queries';
import { HistoryEraser, QueryBody } from '../timeseries/port';
import { KairosQueryError, validateQuery } from '../timeseries/query';
import { UserTokens } from '../tokens/user-tokens';
import { queryCallerOf, sendAnswer } from './answer-body';
import { readJson } from './body';
import { QUERY_LIMITS } from '../timeseries/limits';
import { requestLog } from './error-middleware';
import { checkMetricsReadable, checkMetricsWritable, feedAuth, feedScopeOf } from './feed-auth';
import { singleQuery } from './query';

export interface KairosApiRouterDeps {
  devices: DeviceStore;
  userTokens: UserTokens;
  adminToken: string;
  /** Queries with their budgets and slots, shared with feed-router.ts (issue 10). */
  dataQueries: DataQueries;
  /** A client that reads nothing of a streamed answer for this long is disconnected (QUERY_TIMEOUT_MS). */
  answerStallMs: number;
  /** Deletes history on the embedded engine or KairosDB (TIMESERIES). */
  eraser: HistoryEraser;
  relay: PointRelay;
  now: () => number;
  metrics: Pick<ServiceMetrics, 'timeQuery'>;
  /** The backends /health/check and /health/status report on: those of /readyz. */
  readiness: readonly ReadinessCheck[];
}

/**
 * The rest of KairosDB's REST API (issue 13 §1; reference §3, §8) beside feed-router.ts, under the same prefixes
 * (`/v2/feed/api/v1`, `/feed/api/v1`) with the same credentials and scopes: the GET form of a query, health, features,
 * and deleting history. Errors carry KairosDB's `errors` list like the rest of the data-store API.
 */
export function kairosApiRouter(prefix: string, deps: KairosApiRouterDeps): Router {
  const { devices, dataQueries, eraser, relay, now, metrics, readiness } = deps;
  const router = new Router({ prefix: `${prefix}/api/v1` });
  router.use(async (ctx, next) => {
    ctx.state.kairosErrors = true;
    await next();
  });
  // Health and features want credentials too: a tool's connection test (Grafana's calls /health/status) then
  // proves the credentials as well as the address.
  router.use(feedAuth(devices, deps.userTokens, deps.adminToken));

  /** Points of acknowledged shadow writes may still wait in the outbox: move them first (as feed-router.ts does). */
  const flushed: Middleware = async (_ctx, next) => {
    await relay.flush();
    await next();
  };

  // KairosDB's GET form: the query as JSON in `?query=` (reference §3). A missing parameter is KairosDB's 400; an
  // empty one, which KairosDB answers with 500 "Not a JSON Object: null", gets the same 400.
  router.get('/datapoints/query', flushed, async (ctx) => {
    const text = singleQuery(ctx, 'query');
    if (text === undefined || text.trim() === '') throw new KairosQueryError(['query json must not be null or empty']);
    const body = parseJson(Buffer.from(text), 'lenient', 'query parameter');
    const query = validateQuery(body, now());
    await checkMetricsReadable(devices, feedScopeOf(ctx), [...query.metricNames, ...query.savedMetricNames]);
    const caller = queryCallerOf(ctx, feedScopeOf(ctx));
    const prepared = await metrics.timeQuery('datapoints', () => dataQueries.answer(query, body as QueryBody, caller));
    sendAnswer(ctx, prepared, deps.answerStallMs);
  });

  router.post('/datapoints/delete', flushed, async (ctx) => {
    const body = await readJson(ctx, QUERY_LIMITS.maxBodyBytes, 'lenient');
    const query = validateQuery(body, now());
    await checkMetricsWritable(devices, feedScopeOf(ctx), query.metricNames);
    await eraser.deletePoints(deleteRangesOf(query, body as QueryBody));
    ctx.status = 204;
  });

  router.delete('/metric/:metric', flushed, async (ctx) => {
    const metric = ctx.params.metric;
    await checkMetricsWritable(devices, feedScopeOf(ctx), [metric]);
    await eraser.deleteMetric(metric);
    ctx.status = 204;
  });

  // KairosDB's health checks are its JVM and its datastore; the service's are the backends of /readyz.
  router.get('/health/status', async (ctx) => {
    const report = await checkReadiness(readiness);
    ctx.body = Object.entries(report.checks).map(([name, r]) => `${name}: ${r.status === 'ok' ? 'OK' : 'FAIL'}`);
  });

  router.get('/health/check', async (ctx) => {
    const report = await checkReadiness(readiness);
    const failed = Object.entries(report.checks).filter(([, r]) => r.status === 'fail');
    if (failed.length > 0) {
      requestLog(ctx).warn({ failed: Object.fromEntries(failed.map(([name, r]) => [name, r.error])) }, 'health check failed');
      throw new AppError('HEALTH_CHECK_FAILED', `not every backend answers: ${failed.map(([name]) => name).join(', ')}`);
    }
    ctx.status = 204;
  });

  router.get('/features', (ctx) => {
    ctx.body = FEATURES;
  });

  router.get('/features/:feature', (ctx) => {
    const feature = FEATURES.find((f) => f.name === ctx.params.feature);
    if (feature === undefined) throw new AppError('FEATURE_NOT_FOUND', `Unknown feature '${ctx.params.feature}'`);
    ctx.body = feature.properties;
  });

  return router;
}

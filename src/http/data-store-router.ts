import Router from '@koa/router';
import type { Context } from 'koa';
import { AppError } from '../core/errors';
import { parseJson } from '../core/json';
import { ReadinessCheck } from '../health/port';
import { checkReadiness } from '../health/readiness';
import { FEATURES } from '../timeseries/kairos-features';
import { QUERY_LIMITS } from '../timeseries/limits';
import { KairosQueryError } from '../timeseries/query';
import { DataStore } from '../timeseries/service';
import { cancelledWhenGone, queryRefusals, ROLLUP_HEADER, sendAnswer } from './answer-body';
import { readJson } from './body';
import { requestLog } from './error-middleware';
import { feedAuth, feedScopeOf } from './feed-auth';
import { singleQuery } from './query';

export interface DataStoreRouterDeps {
  /** The data-store use cases: scope, outbox flush and query slots are theirs. */
  dataStore: DataStore;
  /** A client that reads nothing of a streamed answer for this long is disconnected (QUERY_TIMEOUT_MS). */
  answerStallMs: number;
  version: string;
  /** The backends /health/check and /health/status report on: those of /readyz. */
  readiness: readonly ReadinessCheck[];
}

/**
 * The data-store API (spec 4.7, issue 3 §3) in KairosDB's own REST format (reference §3, §8; issue 13 §1), mounted at
 * /v2/feed and /feed, so KairosDB tools can point at `{base}/v2/feed`. Every answer is scoped to what the caller may
 * read (timeseries/scope.ts).
 */
export function dataStoreRouter(prefix: string, deps: DataStoreRouterDeps): Router {
  const { dataStore, readiness } = deps;
  const router = new Router({ prefix: `${prefix}/api/v1` });
  // KairosDB clients read `errors` (reference §1); the error handler adds it to every error of these routes.
  router.use(async (ctx, next) => {
    ctx.state.kairosErrors = true;
    await next();
  });

  // Like KairosDB's, the version needs no credentials: tools use it to test a connection.
  router.get('/version', (ctx) => {
    ctx.body = { version: deps.version };
  });

  // Health and features want credentials too: a tool's connection test (Grafana's calls /health/status) then
  // proves the credentials as well as the address.
  router.use(feedAuth(dataStore.identify));

  router.use(queryRefusals);

  // `X-Openpie-Rollup: off` asks for raw points even where a roll-up tier would answer (docs/data-store.md "Roll-ups").
  const requestOf = (ctx: Context) => ({
    scope: feedScopeOf(ctx), cancelled: cancelledWhenGone(ctx), rawOnly: ctx.get(ROLLUP_HEADER).toLowerCase() === 'off',
  });
  const readQueryBody = (ctx: Context) => readJson(ctx, QUERY_LIMITS.maxBodyBytes, 'lenient');

  router.post('/datapoints/query', async (ctx) => {
    const body = await readQueryBody(ctx);
    sendAnswer(ctx, await dataStore.answer(requestOf(ctx), body), deps.answerStallMs);
  });

  // KairosDB's GET form: the query as JSON in `?query=` (reference §3). A missing parameter is KairosDB's 400; an
  // empty one, which KairosDB answers with 500 "Not a JSON Object: null", gets the same 400.
  router.get('/datapoints/query', async (ctx) => {
    const text = singleQuery(ctx, 'query');
    if (text === undefined || text.trim() === '') throw new KairosQueryError(['query json must not be null or empty']);
    const body = parseJson(Buffer.from(text), 'lenient', 'query parameter');
    sendAnswer(ctx, await dataStore.answer(requestOf(ctx), body), deps.answerStallMs);
  });

  router.post('/datapoints/query/tags', async (ctx) => {
    const body = await readQueryBody(ctx);
    ctx.body = await dataStore.tags(requestOf(ctx), body);
  });

  router.post('/datapoints/delete', async (ctx) => {
    await dataStore.deletePoints(feedScopeOf(ctx), await readQueryBody(ctx));
    ctx.status = 204;
  });

  router.delete('/metric/:metric', async (ctx) => {
    await dataStore.deleteMetric(feedScopeOf(ctx), ctx.params.metric);
    ctx.status = 204;
  });

  router.get('/metricnames', async (ctx) => {
    ctx.body = { results: await dataStore.metricNames(feedScopeOf(ctx), singleQuery(ctx, 'prefix')) };
  });
  router.get('/tagnames', async (ctx) => {
    ctx.body = { results: await dataStore.tagNames(feedScopeOf(ctx)) };
  });
  router.get('/tagvalues', async (ctx) => {
    ctx.body = { results: await dataStore.tagValues(feedScopeOf(ctx)) };
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

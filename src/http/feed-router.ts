import Router from '@koa/router';
import type { Context } from 'koa';
import { AppError } from '../core/errors';
import { DeviceStore } from '../devices/port';
import { ServiceMetrics } from '../metrics/service-metrics';
import { DataQueries } from '../timeseries/data-queries';
import { PointRelay } from '../timeseries/outbox-relay';
import { QueryBody, TimeSeriesQueries } from '../timeseries/port';
import { QueryCancelledError, validateQuery, ValidatedQuery } from '../timeseries/query';
import { UserTokens } from '../tokens/user-tokens';
import { queryCallerOf, sendAnswer } from './answer-body';
import { readJson } from './body';
import { QUERY_LIMITS } from '../timeseries/limits';
import { checkMetricsReadable, feedAuth, feedScopeOf, readableMetrics } from './feed-auth';
import { singleQuery } from './query';

export interface FeedRouterDeps {
  devices: DeviceStore;
  userTokens: UserTokens;
  /** ADMIN_TOKEN: as a bearer token it reads every metric. */
  adminToken: string;
  /** The embedded engine or KairosDB (TIMESERIES): metric and tag listings. */
  queries: TimeSeriesQueries;
  /** The same, for queries: budgets and slots shared by both mounts (issue 10). */
  dataQueries: DataQueries;
  /** A client that reads nothing of a streamed answer for this long is disconnected (QUERY_TIMEOUT_MS). */
  answerStallMs: number;
  relay: PointRelay;
  now: () => number;
  version: string;
  metrics: Pick<ServiceMetrics, 'timeQuery'>;
}

/**
 * The data-store API (spec 4.7, issue 3 §3) in KairosDB's own format, mounted at /v2/feed and /feed, so KairosDB
 * tools can point at `{base}/v2/feed`. Every answer is scoped to what the caller may read.
 */
export function feedRouter(prefix: string, deps: FeedRouterDeps): Router {
  const { devices, userTokens, queries, dataQueries, relay, now, metrics } = deps;
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

  router.use(feedAuth(devices, userTokens, deps.adminToken));
  // Points of acknowledged shadow writes may still wait in the outbox: move them first, so every answer includes
  // every write acknowledged before the request.
  router.use(async (_ctx, next) => {
    await relay.flush();
    await next();
  });

  /** The validated query and the body it came from (an object, or validateQuery throws). */
  const readQuery = async (ctx: Context): Promise<{ query: ValidatedQuery; body: QueryBody }> => {
    const body = await readJson(ctx, QUERY_LIMITS.maxBodyBytes, 'lenient');
    const query = validateQuery(body, now());
    await checkMetricsReadable(devices, feedScopeOf(ctx), [...query.metricNames, ...query.savedMetricNames]);
    return { query, body: body as QueryBody };
  };

  router.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      // A query whose client went away ends without an answer: 499, nginx's "client closed request", for the metrics.
      if (err instanceof QueryCancelledError) {
        ctx.status = 499;
        return;
      }
      // Retry-After in seconds (RFC 9110 §10.2.3), as on the other 429s.
      if (err instanceof AppError && err.code === 'TOO_MANY_QUERIES') ctx.set('Retry-After', String(err.extra.retryAfter));
      throw err;
    }
  });

  router.post('/datapoints/query', async (ctx) => {
    const { query, body } = await readQuery(ctx);
    const caller = queryCallerOf(ctx, feedScopeOf(ctx));
    const prepared = await metrics.timeQuery('datapoints', () => dataQueries.answer(query, body, caller));
    sendAnswer(ctx, prepared, deps.answerStallMs);
  });

  router.post('/datapoints/query/tags', async (ctx) => {
    const { query, body } = await readQuery(ctx);
    ctx.body = await metrics.timeQuery('tags', () => dataQueries.tags(query, body, queryCallerOf(ctx, feedScopeOf(ctx))));
  });

  router.get('/metricnames', async (ctx) => {
    const readable = await readableMetrics(devices, feedScopeOf(ctx));
    const names = await queries.metricNames(singleQuery(ctx, 'prefix'));
    ctx.body = { results: names.filter((n) => readable.has(n)) };
  });

  const tagListing = (pick: (tags: Record<string, string[]>) => string[]) => async (ctx: Context) => {
    const found = new Set<string>();
    for (const metric of await readableMetrics(devices, feedScopeOf(ctx))) {
      for (const item of pick(await queries.tagsOf(metric))) found.add(item);
    }
    ctx.body = { results: [...found].sort() };
  };
  router.get('/tagnames', tagListing((tags) => Object.keys(tags)));
  router.get('/tagvalues', tagListing((tags) => Object.values(tags).flat()));

  return router;
}

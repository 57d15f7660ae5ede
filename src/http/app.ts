import Koa from 'koa';
import type { Logger } from 'pino';
import { DeviceStore } from '../devices/port';
import { Presence } from '../devices/presence';
import { Registry } from '../devices/service';
import { AppError } from '../core/errors';
import { adminAutomationRouter, AdminAutomationRouterDeps } from './admin-automation-router';
import { adminConsoleRouter } from './admin-console-router';
import { adminRouter } from './admin-router';
import { consoleRouter } from './console-router';
import { cors } from './cors';
import { deviceRouter } from './device-router';
import { docsRouter } from './docs-router';
import { bodyDeadline } from './body-deadline';
import { errorMiddleware } from './error-middleware';
import { feedRouter, FeedRouterDeps } from './feed-router';
import { kairosApiRouter } from './kairos-api-router';
import { landingRouter } from './landing-router';
import { HistoryEraser } from '../timeseries/port';
import { opsRouter, OpsRouterDeps } from './ops-router';
import { GroupTraffic } from '../messaging/group-traffic';
import { MessagingService } from '../messaging/service';
import { httpMetrics } from './http-metrics';
import { ServiceMetrics } from '../metrics/service-metrics';
import { KeyedRateLimiter } from '../ratelimit/keyed-rate-limiter';
import { ServiceLimits } from '../config/limits-config';
import { PushService } from '../push/service';
import { ShadowService } from '../shadows/service';
import { createDataQueries } from '../timeseries/data-queries';
import { UserTokens } from '../tokens/user-tokens';

export interface AppDeps
  extends Omit<FeedRouterDeps, 'devices' | 'userTokens' | 'dataQueries' | 'answerStallMs'>,
    Omit<OpsRouterDeps, 'metrics'>,
    Omit<AdminAutomationRouterDeps, 'adminToken'> {
  logger: Logger;
  adminToken: string;
  devices: DeviceStore;
  presence: Presence;
  registry: Registry;
  messaging: MessagingService;
  /** A group's `@msg` traffic for the web console. */
  groupTraffic: GroupTraffic;
  shadowService: ShadowService;
  push: PushService;
  userTokens: UserTokens;
  metrics: ServiceMetrics;
  rateLimiter: KeyedRateLimiter;
  /** Deleting history through the data-store API. */
  eraser: HistoryEraser;
  /** The port devices connect to over MQTT, once the broker listens (the console shows it). */
  mqttPort: () => number;
  /** CORS_ORIGINS: origins whose browser pages may call the API (`*` = any). */
  corsOrigins: readonly string[];
  /** Query budgets and slots, HTTP body timeout (issue 10). */
  limits: Pick<ServiceLimits, 'query' | 'httpBodyTimeoutMs'>;
}

const methodNotAllowed = () => new AppError('METHOD_NOT_ALLOWED', 'method not allowed on this path');

/** Builds the HTTP application; never listens (see main.ts). */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: false });
  // One set of query slots for both mounts of the data-store API.
  const { query } = deps.limits;
  const feed = { ...deps, dataQueries: createDataQueries(deps.queries, query), answerStallMs: query.budgets.timeoutMs };
  // Outside the error middleware, so the metrics see the status the client gets.
  app.use(httpMetrics(deps.metrics));
  // Before the error middleware, so that error answers carry the CORS headers too.
  app.use(cors(deps.corsOrigins));
  app.use(errorMiddleware(deps.logger));
  app.use(bodyDeadline(deps.limits.httpBodyTimeoutMs));
  // NETPIE clients call the Device API both with and without /v2 (netpie reference §1).
  // The data store likewise answers at /v2/feed and /feed (netpie reference §1: ds.netpie.io/feed).
  // The Device API first: it carries nearly all the traffic, and a router whose routes match answers without the
  // routers after it matching the path again (issue 12). No two routers share a path, so the order is otherwise free.
  const routers = [
    deviceRouter('/v2/device', deps),
    deviceRouter('/device', deps),
    opsRouter(deps),
    adminRouter(deps),
    adminConsoleRouter(deps),
    adminAutomationRouter(deps),
    feedRouter('/v2/feed', feed),
    feedRouter('/feed', feed),
    kairosApiRouter('/v2/feed', feed),
    kairosApiRouter('/feed', feed),
    docsRouter(),
    consoleRouter(),
    landingRouter(),
  ];
  for (const router of routers) {
    app.use(router.routes());
    app.use(router.allowedMethods({ throw: true, methodNotAllowed, notImplemented: methodNotAllowed }));
  }
  return app;
}

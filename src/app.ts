import Koa from 'koa';
import type { Logger } from 'pino';
import { DeviceStore } from './devices/port';
import { Presence } from './devices/presence';
import { Registry } from './devices/service';
import { AppError } from './errors';
import { adminAutomationRouter, AdminAutomationRouterDeps } from './http/admin-automation-router';
import { adminConsoleRouter } from './http/admin-console-router';
import { adminRouter } from './http/admin-router';
import { consoleRouter } from './http/console-router';
import { deviceRouter } from './http/device-router';
import { docsRouter } from './http/docs-router';
import { errorMiddleware } from './http/error-middleware';
import { feedRouter, FeedRouterDeps } from './http/feed-router';
import { opsRouter, OpsRouterDeps } from './http/ops-router';
import { GroupTraffic } from './messaging/group-traffic';
import { MessagingService } from './messaging/service';
import { httpMetrics } from './metrics/http-metrics';
import { ServiceMetrics } from './metrics/service-metrics';
import { KeyedRateLimiter } from './ratelimit/keyed-rate-limiter';
import { ShadowService } from './shadows/service';
import { UserTokens } from './tokens/user-tokens';

export interface AppDeps
  extends Omit<FeedRouterDeps, 'devices' | 'userTokens'>,
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
  userTokens: UserTokens;
  metrics: ServiceMetrics;
  rateLimiter: KeyedRateLimiter;
}

const methodNotAllowed = () => new AppError('METHOD_NOT_ALLOWED', 'method not allowed on this path');

/** Builds the HTTP application; never listens (see main.ts). */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: false });
  // Outside the error middleware, so the metrics see the status the client gets.
  app.use(httpMetrics(deps.metrics));
  app.use(errorMiddleware(deps.logger));
  // NETPIE clients call the Device API both with and without /v2 (netpie reference §1).
  // The data store likewise answers at /v2/feed and /feed (netpie reference §1: ds.netpie.io/feed).
  const routers = [
    opsRouter(deps),
    adminRouter(deps),
    adminConsoleRouter(deps),
    adminAutomationRouter(deps),
    deviceRouter('/v2/device', deps),
    deviceRouter('/device', deps),
    feedRouter('/v2/feed', deps),
    feedRouter('/feed', deps),
    docsRouter(),
    consoleRouter(),
  ];
  for (const router of routers) {
    app.use(router.routes());
    app.use(router.allowedMethods({ throw: true, methodNotAllowed, notImplemented: methodNotAllowed }));
  }
  return app;
}

import type { RequestListener } from 'node:http';
import Koa from 'koa';
import type { Logger } from 'pino';
import { DeviceStore } from '../devices/port';
import { Presence } from '../devices/presence';
import { Registry } from '../devices/service';
import { AppError } from '../core/errors';
import { adminApplicationsRouter } from './admin-applications-router';
import { adminConnectionsRouter } from './admin-connections-router';
import { adminAutomationRouter, AdminAutomationRouterDeps } from './admin-automation-router';
import { adminConsoleRouter } from './admin-console-router';
import { adminDatatagsRouter, AdminDatatagsRouterDeps } from './admin-datatags-router';
import { adminRetentionRouter, AdminRetentionRouterDeps } from './admin-retention-router';
import { adminRollupsRouter, AdminRollupsRouterDeps } from './admin-rollups-router';
import { adminRouter } from './admin-router';
import { consoleRouter } from './console-router';
import { cors } from './cors';
import { createDeviceLane } from './device-lane';
import { deviceRouter } from './device-router';
import { fleetRouter } from './fleet-router';
import { FleetQueries } from '../fleet/service';
import { adminDesiredRouter, deviceDesiredRouter, tokenDesiredRouter } from './desired-router';
import { DesiredService } from '../desired/service';
import { docsRouter } from './docs-router';
import { bodyDeadline } from './body-deadline';
import { errorMiddleware } from './error-middleware';
import { dataStoreRouter, DataStoreRouterDeps } from './data-store-router';
import { landingRouter, LandingRouterDeps } from './landing-router';
import { opsRouter, OpsRouterDeps } from './ops-router';
import { GroupTraffic } from '../messaging/group-traffic';
import { MessagingService } from '../messaging/service';
import { httpMetrics } from './http-metrics';
import { ServiceMetrics } from '../metrics/service-metrics';
import { Admission } from '../devices/admission';
import { PushService } from '../push/service';
import { FailureThrottle } from '../ratelimit/failure-throttle';
import { adminAuth } from './admin-auth';
import { adminAccess } from './admin-access';
import { adminOperatorsRouter } from './admin-operators-router';
import { Applications } from '../applications/service';
import { ConnectionInspector } from '../connections/inspector';
import { AuditLog } from '../operators/port';
import { Operators } from '../operators/service';
import { ShadowService } from '../shadows/service';
import { QueryLimits } from '../timeseries/limits';
import { UserTokens } from '../tokens/user-tokens';

export interface AppDeps
  extends Omit<DataStoreRouterDeps, 'answerStallMs'>,
    Omit<OpsRouterDeps, 'metrics'>,
    Omit<AdminAutomationRouterDeps, 'adminAuth'>,
    Omit<AdminRetentionRouterDeps, 'adminAuth'>,
    Omit<AdminRollupsRouterDeps, 'adminAuth'>,
    Omit<AdminDatatagsRouterDeps, 'adminAuth'>,
    Pick<LandingRouterDeps, 'serviceFacts'> {
  logger: Logger;
  adminToken: string;
  /** Operator accounts (their keys open the admin API, as ADMIN_TOKEN does) and the audit log of admin changes. */
  operators: Operators;
  audit: AuditLog;
  /** Application keys (issue 22): how applications log in to the Flow Channel. */
  applications: Applications;
  now: () => number;
  /** Failed credential checks, shared with the device doors (ratelimit/failure-throttle.ts). */
  failures: FailureThrottle;
  devices: DeviceStore;
  presence: Presence;
  registry: Registry;
  messaging: MessagingService;
  /** The connection inspector (connections/): a device's live connections and history, across the nodes. */
  connections: ConnectionInspector;
  /** A group's `@msg` traffic for the web console. */
  groupTraffic: GroupTraffic;
  shadowService: ShadowService;
  /** Desired state (issue 25 §2): the device, admin and user-token routes of `/shadow/desired`. */
  desired: DesiredService;
  push: PushService;
  userTokens: UserTokens;
  /** The fleet query over the shadows (fleet/service.ts). */
  fleet: FleetQueries;
  metrics: ServiceMetrics;
  /** The one way in for devices (devices/admission.ts). */
  admission: Admission;
  /** The port devices connect to over MQTT, once the broker listens (the console shows it). */
  mqttPort: () => number;
  /** CORS_ORIGINS: origins whose browser pages may call the API (`*` = any). */
  corsOrigins: readonly string[];
  /** Query budgets (a streamed answer's stall timeout), HTTP body timeout (issue 10). */
  limits: { readonly query: Pick<QueryLimits, 'budgets'>; readonly httpBodyTimeoutMs: number };
}

const methodNotAllowed = () => new AppError('METHOD_NOT_ALLOWED', 'method not allowed on this path');

/**
 * The HTTP server's request listener: the Device API's lane (device-lane.ts) for status and publishing, the Koa app
 * for everything else.
 */
export function createRequestListener(app: Koa, deps: AppDeps): RequestListener {
  const lane = createDeviceLane(deps);
  const koa = app.callback();
  return (req, res) => {
    if (!lane(req, res)) void koa(req, res);
  };
}

/** Builds the HTTP application; never listens (see main.ts). */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: false });
  const dataStore = { ...deps, answerStallMs: deps.limits.query.budgets.timeoutMs };
  // Who calls (admin-auth.ts), then whether the route's role is theirs and, for a change, its audit entry (admin-access.ts).
  const authenticate = adminAuth(deps);
  const access = adminAccess(deps);
  const admin = { ...deps, adminAuth: ((ctx, next) => authenticate(ctx, () => access(ctx, next))) as Koa.Middleware };
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
    deviceDesiredRouter('/v2/device', deps),
    deviceDesiredRouter('/device', deps),
    adminDesiredRouter(admin),
    tokenDesiredRouter(deps),
    opsRouter(deps),
    adminRouter(admin),
    adminConsoleRouter(admin),
    adminAutomationRouter(admin),
    adminRetentionRouter(admin),
    adminRollupsRouter(admin),
    adminDatatagsRouter(admin),
    adminOperatorsRouter(admin),
    adminApplicationsRouter(admin),
    adminConnectionsRouter(admin),
    fleetRouter(admin),
    dataStoreRouter('/v2/feed', dataStore),
    dataStoreRouter('/feed', dataStore),
    docsRouter(),
    consoleRouter(),
    landingRouter(deps),
  ];
  for (const router of routers) {
    app.use(router.routes());
    app.use(router.allowedMethods({ throw: true, methodNotAllowed, notImplemented: methodNotAllowed }));
  }
  return app;
}

import Router from '@koa/router';
import type { Context } from 'koa';
import { DeviceStore } from '../devices/port';
import { Presence } from '../devices/presence';
import { AppError } from '../errors';
import { MESSAGE_LIMITS } from '../messaging/limits';
import { MessagingService } from '../messaging/service';
import { ServiceMetrics } from '../metrics/service-metrics';
import { QuotaGate } from '../quotas/port';
import { KeyedRateLimiter } from '../ratelimit/keyed-rate-limiter';
import { warningMembers } from '../schema/warnings';
import { ShadowService } from '../shadows/service';
import { Shadow } from '../shadows/shadow';
import { apiCallQuota } from './api-call-quota';
import { BODY_LIMITS, readJson, readMessage } from './body';
import { callerOf, deviceAuth } from './device-auth';
import { deviceRateLimit } from './device-rate-limit';
import { singleQuery } from './query';

export interface DeviceRouterDeps {
  devices: DeviceStore;
  presence: Presence;
  messaging: MessagingService;
  shadowService: ShadowService;
  /** Per-device buckets, shared with the MQTT broker's publishes. */
  rateLimiter: KeyedRateLimiter;
  metrics: Pick<ServiceMetrics, 'countRateLimitRefusal'>;
  /** The API-call quota of the caller's project (issue 5 §5); none when absent. */
  quotas?: QuotaGate;
}

/** The topic of `/message/{any}/{topic}` or of `/message?topic=` (spec 4.2, 4.3), exactly one of them. */
function topicOf(ctx: Context): string {
  const inPath = ctx.params.topic as string | string[] | undefined;
  const inQuery = singleQuery(ctx, 'topic');
  if (inPath !== undefined && inQuery !== undefined) {
    throw new AppError('INVALID_TOPIC', 'give the topic in the path or in ?topic=, not both');
  }
  const topic = Array.isArray(inPath) ? inPath.join('/') : (inPath ?? inQuery);
  if (topic === undefined) throw new AppError('INVALID_TOPIC', 'no topic: use /message/{any}/{topic} or ?topic=');
  return topic;
}

const shadowBody = (s: Shadow) => ({
  status: 200,
  deviceid: s.deviceid,
  data: s.data,
  rev: s.rev,
  modified: s.modified,
  timestamp: s.timestamp,
});

/** The Device API (spec 4.1-4.6), mounted at /v2/device and /device. */
export function deviceRouter(prefix: string, deps: DeviceRouterDeps): Router {
  const { devices, presence, messaging, shadowService } = deps;
  const router = new Router({ prefix });
  router.use(deviceAuth(devices, presence));
  router.use(deviceRateLimit(deps.rateLimiter, deps.metrics));
  if (deps.quotas) router.use(apiCallQuota(deps.quotas, Date.now));

  router.get('/status', (ctx) => {
    const d = callerOf(ctx);
    // The one body whose `status` is not the HTTP code: spec 2.1 and 4.1 make it the connection state (1/0), and
    // NETPIE clients read it so (netpie reference §5.2).
    ctx.body = {
      deviceid: d.deviceid,
      alias: d.alias,
      groupid: d.groupid,
      projectid: d.projectid,
      status: presence.statusOf(d),
      enabled: d.enabled,
      banned: d.banned,
    };
  });

  const publish = (kind: 'message' | 'private') => async (ctx: Context) => {
    const topic = topicOf(ctx);
    const payload = await readMessage(ctx, MESSAGE_LIMITS.maxPayloadBytes);
    if (kind === 'message') await messaging.publishMessage(callerOf(ctx), topic, payload);
    else await messaging.publishPrivate(callerOf(ctx), topic, payload);
    ctx.body = { status: 200, message: `published to ${kind === 'message' ? '@msg' : '@private'}/${topic}` };
  };
  for (const kind of ['message', 'private'] as const) {
    router.put(`/${kind}`, publish(kind));
    router.put(`/${kind}/*topic`, publish(kind));
  }

  router.get('/shadow/data', async (ctx) => {
    ctx.body = shadowBody(await shadowService.readShadow(callerOf(ctx), singleQuery(ctx, 'alias')));
  });

  const writeShadow = (merged: boolean) => async (ctx: Context) => {
    const body = await readJson(ctx, BODY_LIMITS.shadowWrite);
    const result = await shadowService.writeShadow(callerOf(ctx), singleQuery(ctx, 'alias'), body, merged);
    ctx.body = { ...shadowBody(result.shadow), applied: result.applied, ...warningMembers(result.warnings) };
  };
  router.put('/shadow/data', writeShadow(true));
  router.post('/shadow/data', writeShadow(false));

  const writeBatch = (merged: boolean) => async (ctx: Context) => {
    const body = await readJson(ctx, BODY_LIMITS.batch);
    ctx.body = await shadowService.writeBatch(callerOf(ctx), singleQuery(ctx, 'alias'), body, merged);
  };
  router.put('/shadow/batch', writeBatch(true));
  router.post('/shadow/batch', writeBatch(false));

  return router;
}

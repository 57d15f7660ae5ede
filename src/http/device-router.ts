import Router from '@koa/router';
import type { Context } from 'koa';
import { AppError } from '../core/errors';
import { Admission } from '../devices/admission';
import { Presence } from '../devices/presence';
import { MESSAGE_LIMITS } from '../messaging/limits';
import { publishOptionsOf } from '../messaging/publish-options';
import { MessagingService } from '../messaging/service';
import { PUSH_LIMITS } from '../push/codecs';
import { PushService } from '../push/service';
import { ShadowService } from '../shadows/service';
import { revisionsQueryFrom } from '../shadows/history-codecs';
import { SHADOW_LIMITS } from '../shadows/limits';
import { revisionsReply, shadowReply, shadowWriteReply } from '../shadows/replies';
import { readJson, readMessage } from './body';
import { admitDevice, callerOf } from './device-auth';
import { messagePropertiesOfRequest } from './message-headers';
import { singleQuery } from './query';
import { revConditionOf, setShadowEtag } from './shadow-conditions';

export interface DeviceRouterDeps {
  /** The one way in for devices: credentials, rate limit, API-call quota (devices/admission.ts). */
  admission: Admission;
  presence: Presence;
  messaging: MessagingService;
  shadowService: ShadowService;
  push: PushService;
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

/** The Device API (spec 4.1-4.6), mounted at /v2/device and /device. */
export function deviceRouter(prefix: string, deps: DeviceRouterDeps): Router {
  const { presence, messaging, shadowService } = deps;
  const router = new Router({ prefix });
  // Admission as one middleware: every matched layer costs the router a regex capture and a step of its chain on
  // each call (issue 12).
  router.use(admitDevice(deps.admission));

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
    const options = publishOptionsOf(singleQuery(ctx, 'qos'), singleQuery(ctx, 'retain'));
    const payload = await readMessage(ctx, MESSAGE_LIMITS.maxPayloadBytes);
    const properties = messagePropertiesOfRequest(ctx, payload);
    const published = kind === 'message'
      ? await messaging.publishMessage(callerOf(ctx), topic, payload, { ...options, properties })
      : await messaging.publishPrivate(callerOf(ctx), topic, payload, { ...options, properties });
    ctx.body = { status: 200, message: `published to ${published}` };
  };
  for (const kind of ['message', 'private'] as const) {
    router.put(`/${kind}`, publish(kind));
    router.put(`/${kind}/*topic`, publish(kind));
  }

  // Reads and writes carry the shadow's rev as ETag; writes take If-Match / If-None-Match (issue 25 §1).
  // `?at=`: the shadow as it was then (issue 25 §3, docs/device-api.md "Shadow history").
  router.get('/shadow/data', async (ctx) => {
    const alias = singleQuery(ctx, 'alias');
    const at = singleQuery(ctx, 'at');
    const shadow = at === undefined ? await shadowService.readShadow(callerOf(ctx), alias) : await shadowService.readShadowAt(callerOf(ctx), alias, at);
    setShadowEtag(ctx, shadow);
    ctx.body = { status: 200, ...shadowReply(shadow) };
  });

  router.get('/shadow/revisions', async (ctx) => {
    const page = await shadowService.listRevisions(callerOf(ctx), singleQuery(ctx, 'alias'), revisionsQueryFrom((name) => singleQuery(ctx, name)));
    ctx.body = { status: 200, ...revisionsReply(page) };
  });

  const writeShadow = (merged: boolean) => async (ctx: Context) => {
    const condition = revConditionOf(ctx);
    const body = await readJson(ctx, SHADOW_LIMITS.maxWriteBodyBytes);
    const result = await shadowService.writeShadow(callerOf(ctx), singleQuery(ctx, 'alias'), body, merged, condition);
    setShadowEtag(ctx, result.shadow);
    ctx.body = { status: 200, ...shadowWriteReply(result) };
  };
  router.put('/shadow/data', writeShadow(true));
  router.post('/shadow/data', writeShadow(false));

  const writeBatch = (merged: boolean) => async (ctx: Context) => {
    const condition = revConditionOf(ctx);
    const body = await readJson(ctx, SHADOW_LIMITS.maxBatchBodyBytes);
    const { rev, ...reply } = await shadowService.writeBatch(callerOf(ctx), singleQuery(ctx, 'alias'), body, merged, condition);
    setShadowEtag(ctx, { rev });
    ctx.body = reply;
  };
  router.put('/shadow/batch', writeBatch(true));
  router.post('/shadow/batch', writeBatch(false));

  // A notification for the device's owner: a DEVICE.PUSH event for its triggers (netpie reference §5.8).
  router.put('/push', async (ctx) => {
    deps.push.push(callerOf(ctx), await readJson(ctx, PUSH_LIMITS.maxBodyBytes));
    ctx.body = { status: 200, message: 'push accepted' };
  });

  return router;
}

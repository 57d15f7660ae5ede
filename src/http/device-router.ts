import Router from '@koa/router';
import type { Context } from 'koa';
import { Admission } from '../devices/admission';
import { PUSH_LIMITS } from '../push/codecs';
import { PushService } from '../push/service';
import { ShadowService } from '../shadows/service';
import { revisionsQueryFrom } from '../shadows/history-codecs';
import { SHADOW_LIMITS } from '../shadows/limits';
import { revisionsReply, shadowReply, shadowWriteReply } from '../shadows/replies';
import { readJson } from './body';
import { admitDevice, callerOf } from './device-auth';
import { singleQuery } from './query';
import { notModifiedSince, revConditionOf, setShadowEtag } from './shadow-conditions';

export interface DeviceRouterDeps {
  /** The one way in for devices: credentials, rate limit, API-call quota (devices/admission.ts). */
  admission: Admission;
  shadowService: ShadowService;
  push: PushService;
}

/**
 * The Device API (spec 4.1-4.6), mounted at /v2/device and /device: the shadow and push routes; status and publishing
 * are served before Koa (device-lane.ts). Paths are case-sensitive, as the lane's are.
 */
export function deviceRouter(prefix: string, deps: DeviceRouterDeps): Router {
  const { shadowService } = deps;
  const router = new Router({ prefix, sensitive: true });
  // Admission as one middleware: every matched layer costs the router a regex capture and a step of its chain on
  // each call (issue 12).
  router.use(admitDevice(deps.admission));

  // Reads and writes carry the shadow's rev as ETag; writes take If-Match / If-None-Match (issue 25 §1), reads
  // If-None-Match (304).
  // `?at=`: the shadow as it was then (issue 25 §3, docs/device-api.md "Shadow history").
  router.get('/shadow/data', async (ctx) => {
    const alias = singleQuery(ctx, 'alias');
    const at = singleQuery(ctx, 'at');
    const shadow = at === undefined ? await shadowService.readShadow(callerOf(ctx), alias) : await shadowService.readShadowAt(callerOf(ctx), alias, at);
    if (!notModifiedSince(ctx, shadow)) ctx.body = { status: 200, ...shadowReply(shadow) };
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

import type { Middleware } from 'koa';
import Router from '@koa/router';
import { isUtf8 } from 'node:buffer';
import * as t from 'io-ts';
import { closed } from '../core/codecs';
import { decodeOrThrow } from '../core/decode-errors';
import { requireProject } from '../operators/access';
import { Registry } from '../devices/service';
import { MESSAGE_LIMITS } from '../messaging/limits';
import { GroupMessage, GroupTraffic } from '../messaging/group-traffic';
import { ShadowService } from '../shadows/service';
import { revisionsReply, shadowReply, shadowWriteReply } from '../shadows/replies';
import { groupOf } from './admin-path-scope';
import { readJson } from './body';
import { singleQuery } from './query';
import { revisionsQueryFrom } from '../shadows/history-codecs';
import { SHADOW_LIMITS } from '../shadows/limits';
import { notModifiedSince, revConditionOf, setShadowEtag } from './shadow-conditions';
import { EventStream, openEventStream } from './event-stream';

/** Bytes of a payload shown in the live view; the event says how long the whole payload was. */
export const PREVIEW_BYTES = 4096;

/** Room for the topic and the JSON around a payload of the largest size a device may publish. */
const PUBLISH_BODY_LIMIT = MESSAGE_LIMITS.maxPayloadBytes + 4096;

const PublishRequest = closed({ topic: t.string, payload: t.string });

export interface AdminConsoleRouterDeps {
  /** Guards every route (http/admin-auth.ts). */
  adminAuth: Middleware;
  registry: Registry;
  shadowService: ShadowService;
  groupTraffic: GroupTraffic;
}


/** What the live view shows of a message: its text (or base64 when it is not UTF-8), cut to PREVIEW_BYTES. */
export function previewOf(message: GroupMessage) {
  const bytes = message.payload.length;
  const head = message.payload.subarray(0, PREVIEW_BYTES);
  const utf8 = isUtf8(message.payload);
  // Streaming mode holds back a character cut in half at the end of the preview instead of mangling it.
  const payload = utf8 ? new TextDecoder('utf-8').decode(head, { stream: true }) : head.toString('base64');
  const encoding = utf8 ? 'utf8' : 'base64';
  return { topic: message.topic, payload, encoding, bytes, truncated: bytes > PREVIEW_BYTES, ts: message.ts };
}

/**
 * Admin routes the web console needs (issue 6 §2): a device's shadow read and merge-written by the operator (the
 * device itself is the caller, so every rule of the Device API holds), and a group's `@msg` traffic, watched live
 * as Server-Sent Events and published into.
 */
export function adminConsoleRouter({ adminAuth, registry, shadowService, groupTraffic }: AdminConsoleRouterDeps): Router {
  const router = new Router({ prefix: '/v2/admin' });
  router.use(adminAuth);

  router.get('/devices/:deviceid/shadow', async (ctx) => {
    const device = await registry.getDevice(ctx.params.deviceid);
    requireProject(ctx, device.projectid);
    const at = singleQuery(ctx, 'at');
    // `?at=`: the shadow as it was then, as the Device API's (docs/device-api.md "Shadow history").
    const shadow = at === undefined ? await shadowService.readShadow(device) : await shadowService.readShadowAt(device, undefined, at);
    if (!notModifiedSince(ctx, shadow)) ctx.body = { status: 200, ...shadowReply(shadow) };
  });

  // The console's slider over the device's revisions.
  router.get('/devices/:deviceid/shadow/revisions', async (ctx) => {
    const device = await registry.getDevice(ctx.params.deviceid);
    requireProject(ctx, device.projectid);
    const page = await shadowService.listRevisions(device, undefined, revisionsQueryFrom((name) => singleQuery(ctx, name)));
    ctx.body = { status: 200, ...revisionsReply(page) };
  });

  // The body, reply and conditions (If-Match, If-None-Match) of the Device API's shadow write; the shadow service
  // decodes it, as for every transport.
  router.put('/devices/:deviceid/shadow', async (ctx) => {
    const condition = revConditionOf(ctx);
    const body = await readJson(ctx, SHADOW_LIMITS.maxWriteBodyBytes);
    const device = await registry.getDevice(ctx.params.deviceid);
    requireProject(ctx, device.projectid);
    const result = await shadowService.writeShadow(device, undefined, body, true, condition);
    setShadowEtag(ctx, result.shadow);
    ctx.body = { status: 200, ...shadowWriteReply(result) };
  });

  router.get('/groups/:projectid/:groupid/messages', async (ctx) => {
    const group = groupOf(ctx);
    // Listening starts before the response does, so a failure to listen is still an ordinary error reply.
    let stream: EventStream | undefined;
    let busClosed = false;
    const stop = await groupTraffic.watch(
      group,
      (message) => stream?.send('message', previewOf(message)),
      () => {
        busClosed = true;
        stream?.end();
      },
    );
    stream = openEventStream(ctx);
    stream.onClose(() => void stop());
    stream.send('ready', { ...group, topic: '@msg/#' });
    if (busClosed) stream.end();
  });

  router.post('/groups/:projectid/:groupid/messages', async (ctx) => {
    const group = groupOf(ctx);
    const req = decodeOrThrow(PublishRequest, await readJson(ctx, PUBLISH_BODY_LIMIT));
    const topic = await groupTraffic.publish(group, req.topic, Buffer.from(req.payload, 'utf8'));
    ctx.body = { status: 200, message: `published to ${topic}` };
  });

  return router;
}

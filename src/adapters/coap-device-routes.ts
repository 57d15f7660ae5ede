import { AppError } from '../errors';
import { BODY_LIMITS } from '../http/body';
import { parseJson } from '../json';
import { MESSAGE_LIMITS } from '../messaging/limits';
import { MessagingService } from '../messaging/service';
import { QuotaGate } from '../quotas/port';
import { blocksOf, MESSAGE_BLOCK } from '../quotas/quota';
import { warningMembers } from '../schema/warnings';
import { ShadowService } from '../shadows/service';
import { Shadow } from '../shadows/shadow';
import { CHANGED, CONTENT } from './coap-codes';
import { CoapCall, CoapHandler, CoapRoute } from './coap-routes';

export interface CoapDeviceRoutesDeps {
  messaging: MessagingService;
  shadowService: ShadowService;
  /** The API-call quota of the caller's project (issue 5 §5); none when absent. */
  quotas?: QuotaGate;
}

/**
 * Success bodies are REST's (http/device-router.ts) without `status`: the CoAP code carries it, and NETPIE's CoAP
 * replies have none (netpie reference §4), so `deviceid` and `data` come first as hobby clients expect.
 */
const shadowBody = (s: Shadow) => ({
  deviceid: s.deviceid,
  data: s.data,
  rev: s.rev,
  modified: s.modified,
  timestamp: s.timestamp,
});

/** JSON bodies are read leniently: NETPIE's own CoAP example sends `{data:{temp:30.4}}`, with unquoted keys. */
function jsonOf({ contentFormat, payload }: CoapCall): unknown {
  const json = contentFormat === undefined || contentFormat === 'application/json' || contentFormat === 'text/plain';
  if (!json && !(typeof contentFormat === 'string' && contentFormat.endsWith('+json'))) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `expected Content-Format application/json (50), got ${contentFormat}`);
  }
  return parseJson(payload, 'lenient');
}

/** The CoAP device API: the REST routes of netpie reference §4, with the same use cases and rules. */
export function coapDeviceRoutes({ messaging, shadowService, quotas }: CoapDeviceRoutesDeps): CoapRoute[] {
  const publish: CoapHandler = async ({ caller, rest, payload }) => {
    const topic = rest.join('/');
    if (topic === '') throw new AppError('INVALID_TOPIC', 'no topic: use /message/{any}/{topic}');
    await messaging.publishMessage(caller, topic, payload);
    return { code: CHANGED, body: { message: `published to @msg/${topic}` } };
  };

  const readShadow: CoapHandler = async ({ caller, query }) => ({
    code: CONTENT,
    body: shadowBody(await shadowService.readShadow(caller, query.get('alias'))),
  });

  const writeShadow =
    (merged: boolean): CoapHandler =>
    async (call) => {
      const result = await shadowService.writeShadow(call.caller, call.query.get('alias'), jsonOf(call), merged);
      return { code: CHANGED, body: { ...shadowBody(result.shadow), applied: result.applied, ...warningMembers(result.warnings) } };
    };

  const writeBatch =
    (merged: boolean): CoapHandler =>
    async (call) => ({
      code: CHANGED,
      body: await shadowService.writeBatch(call.caller, call.query.get('alias'), jsonOf(call), merged),
    });

  const routes: CoapRoute[] = [
    { path: ['message'], open: true, maxPayloadBytes: MESSAGE_LIMITS.maxPayloadBytes, methods: { PUT: publish } },
    {
      path: ['shadow', 'data'],
      open: false,
      maxPayloadBytes: BODY_LIMITS.shadowWrite,
      // POST (overwrite) is not in NETPIE's CoAP table, but REST has it and nothing argues against it here.
      methods: { GET: readShadow, PUT: writeShadow(true), POST: writeShadow(false) },
    },
    {
      path: ['shadow', 'batch'],
      open: false,
      maxPayloadBytes: BODY_LIMITS.batch,
      methods: { PUT: writeBatch(true), POST: writeBatch(false) },
    },
  ];
  if (!quotas) return routes;
  return routes.map((route) => ({
    ...route,
    methods: Object.fromEntries(Object.entries(route.methods).map(([method, handler]) => [method, handler && metered(quotas, handler)])),
  }));
}

/**
 * CoAP calls are API calls like REST's (netpie reference §9 meters REST; CoAP is the same API): the request, 1 per
 * started 4 KiB of payload, is charged before the handler and refused with 4.29 when spent; the reply after it.
 */
function metered(quotas: QuotaGate, handler: CoapHandler): CoapHandler {
  return async (call) => {
    const { projectid } = call.caller;
    await quotas.spend(projectid, { apiCalls: blocksOf(call.payload.length, MESSAGE_BLOCK) }, Date.now());
    let replyBytes = 0;
    try {
      const reply = await handler(call);
      replyBytes = Buffer.byteLength(JSON.stringify(reply.body));
      return reply;
    } finally {
      quotas.record(projectid, { apiCalls: blocksOf(replyBytes, MESSAGE_BLOCK) }, Date.now());
    }
  };
}

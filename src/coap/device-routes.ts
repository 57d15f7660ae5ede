import { AppError } from '../core/errors';
import { parseJson } from '../core/json';
import { MESSAGE_LIMITS } from '../messaging/limits';
import { messagePropertiesFromText } from '../messaging/message-options';
import { publishOptionsOf } from '../messaging/publish-options';
import { MessagingService } from '../messaging/service';
import { PUSH_LIMITS } from '../push/codecs';
import { PushService } from '../push/service';
import { ShadowService } from '../shadows/service';
import { revisionsQueryFrom } from '../shadows/history-codecs';
import { SHADOW_LIMITS } from '../shadows/limits';
import { revisionsReply, shadowReply, shadowWriteReply } from '../shadows/replies';
import { CHANGED, CONTENT } from './codes';
import { coapEtagOf } from './shadow-conditions';
import { CoapCall, CoapHandler, CoapRoute } from './routes';

export interface CoapDeviceRoutesDeps {
  messaging: MessagingService;
  shadowService: ShadowService;
  push: PushService;
}

/** JSON bodies are read leniently: NETPIE's own CoAP example sends `{data:{temp:30.4}}`, with unquoted keys. */
export function jsonOf({ contentFormat, payload }: CoapCall): unknown {
  const json = contentFormat === undefined || contentFormat === 'application/json' || contentFormat === 'text/plain';
  if (!json && !(typeof contentFormat === 'string' && contentFormat.endsWith('+json'))) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `expected Content-Format application/json (50), got ${contentFormat}`);
  }
  return parseJson(payload, 'lenient');
}

/** The CoAP device API: the REST routes of netpie reference §4, with the same use cases and rules. */
export function coapDeviceRoutes({ messaging, shadowService, push }: CoapDeviceRoutesDeps): CoapRoute[] {
  /** A message's bytes as sent, whatever its Content-Format (docs/coap.md), as REST's message bodies. */
  const publish =
    (kind: 'message' | 'private'): CoapHandler =>
    async ({ caller, rest, payload, contentFormat, query }) => {
      const topic = rest.join('/');
      if (topic === '') throw new AppError('INVALID_TOPIC', `no topic: use /${kind}/{topic}`);
      // A named Content-Format is the message's MQTT 5 Content Type, as REST's Content-Type is (docs/coap.md).
      const properties = typeof contentFormat === 'string' ? messagePropertiesFromText({ 'content-type': contentFormat }, payload) : undefined;
      const options = { ...publishOptionsOf(query.get('qos'), query.get('retain')), properties };
      const published = kind === 'message'
        ? await messaging.publishMessage(caller, topic, payload, options)
        : await messaging.publishPrivate(caller, topic, payload, options);
      return { code: CHANGED, body: { message: `published to ${published}` } };
    };

  // Replies carry the shadow's rev as ETag; writes take If-Match / If-None-Match (issue 25 §1, docs/coap.md).
  // `?at=` and `shadow/revisions`: the shadow's history, as REST's (docs/device-api.md "Shadow history").
  const readShadow: CoapHandler = async ({ caller, query }) => {
    const at = query.get('at');
    const shadow = at === undefined
      ? await shadowService.readShadow(caller, query.get('alias'))
      : await shadowService.readShadowAt(caller, query.get('alias'), at);
    return { code: CONTENT, body: shadowReply(shadow), etag: coapEtagOf(shadow.rev) };
  };

  const readRevisions: CoapHandler = async ({ caller, query }) => {
    const page = await shadowService.listRevisions(caller, query.get('alias'), revisionsQueryFrom((name) => query.get(name)));
    return { code: CONTENT, body: revisionsReply(page) };
  };

  const writeShadow =
    (merged: boolean): CoapHandler =>
    async (call) => {
      const result = await shadowService.writeShadow(call.caller, call.query.get('alias'), jsonOf(call), merged, call.revCondition);
      return { code: CHANGED, body: shadowWriteReply(result), etag: coapEtagOf(result.shadow.rev) };
    };

  const writeBatch =
    (merged: boolean): CoapHandler =>
    async (call) => {
      const { rev, ...body } = await shadowService.writeBatch(call.caller, call.query.get('alias'), jsonOf(call), merged, call.revCondition);
      return { code: CHANGED, body, etag: coapEtagOf(rev) };
    };

  const pushed: CoapHandler = async (call) => {
    push.push(call.caller, jsonOf(call));
    return { code: CHANGED, body: { message: 'push accepted' } };
  };

  return [
    { path: ['message'], open: true, maxPayloadBytes: MESSAGE_LIMITS.maxPayloadBytes, methods: { PUT: publish('message') } },
    // Not in NETPIE's CoAP table (reference §4), but REST has it: a device's message to itself, as REST's /private.
    { path: ['private'], open: true, maxPayloadBytes: MESSAGE_LIMITS.maxPayloadBytes, methods: { PUT: publish('private') } },
    {
      path: ['shadow', 'data'],
      open: false,
      maxPayloadBytes: SHADOW_LIMITS.maxWriteBodyBytes,
      // POST (overwrite) is not in NETPIE's CoAP table, but REST has it and nothing argues against it here.
      methods: { GET: readShadow, PUT: writeShadow(true), POST: writeShadow(false) },
    },
    { path: ['shadow', 'revisions'], open: false, maxPayloadBytes: 0, methods: { GET: readRevisions } },
    {
      path: ['shadow', 'batch'],
      open: false,
      maxPayloadBytes: SHADOW_LIMITS.maxBatchBodyBytes,
      methods: { PUT: writeBatch(true), POST: writeBatch(false) },
    },
    { path: ['push'], open: false, maxPayloadBytes: PUSH_LIMITS.maxBodyBytes, methods: { PUT: pushed } },
  ];
}

import type { Logger } from 'pino';
import { Device } from '../devices/device';
import { AppError, ErrorBody, errorBodyOf } from '../core/errors';
import { isJsonObject, parseJson } from '../core/json';
import { MESSAGE_LIMITS } from '../messaging/limits';
import { MessageBus } from '../messaging/port';
import { privateTopic } from '../messaging/topics';
import { AckId } from '../shadows/codecs';
import { warningMembers } from '../schema/warnings';
import { ShadowService } from '../shadows/service';
import { shadowReply } from '../shadows/replies';
import { DesiredService } from '../desired/service';
import { desiredReply } from '../desired/replies';
import { ShadowReplyTo } from './v5/shadow-response';

/**
 * The topics on which a device asks for its own shadow (netpie reference §3.2), each with the topic under the
 * device's `@private/` that carries its replies and its errors.
 */
const REPLY_TOPIC = {
  '@shadow/data/get': 'shadow/data/get/response',
  '@shadow/data/update': 'shadow/data/update/response',
  '@shadow/batch/update': 'shadow/batch/update/response',
  '@shadow/desired/get': 'shadow/desired/get/response',
} as const;

type RequestTopic = keyof typeof REPLY_TOPIC;

const isRequestTopic = (topic: string): topic is RequestTopic => Object.hasOwn(REPLY_TOPIC, topic);

/** The shadow over native MQTT (issue 5 §1): what the broker asks of it. */
export interface ShadowTopics {
  /** True for `@shadow/data/get`, `@shadow/data/update`, `@shadow/batch/update` and `@shadow/desired/get`. */
  isRequest(topic: string): boolean;
  /**
   * Serves one request and publishes its replies. The requests of one device are served one at a time, in the order
   * they were handed in, so an update followed by a get reads the update. Never rejects: every failure becomes an
   * error reply. `replyTo`: the MQTT 5 Response Topic and Correlation Data of the request (v5/shadow-response.ts);
   * a request with a Response Topic always gets exactly one answer there, success or error.
   */
  serve(device: Device, topic: string, payload: Buffer, replyTo?: ShadowReplyTo): Promise<void>;
}

export interface ShadowTopicsDeps {
  shadowService: ShadowService;
  /** `@shadow/desired/get` (issue 25 §2); without it that topic is refused as unknown. */
  desired?: DesiredService;
  /** Delivers the replies; topics are internal (messaging/topics.ts). */
  bus: MessageBus;
  logger: Logger;
}

export function createShadowTopics({ shadowService, desired, bus, logger }: ShadowTopicsDeps): ShadowTopics {
  /** The tail of each device's queue of requests; dropped once it is served and nothing came after it. */
  const queues = new Map<string, Promise<void>>();

  const publishJson = (topic: string, body: object, replyTo?: ShadowReplyTo) =>
    bus.publish(topic, Buffer.from(JSON.stringify(body)), replyTo?.correlationData && { properties: { correlationData: replyTo.correlationData } });
  const replyTopicOf = (device: Device, topic: RequestTopic, replyTo?: ShadowReplyTo) =>
    replyTo?.topic ?? privateTopic(device.deviceid, REPLY_TOPIC[topic]);

  /** The story of each request; throws AppError for anything the device did wrong. */
  async function handle(device: Device, topic: RequestTopic, payload: Buffer, replyTo?: ShadowReplyTo): Promise<void> {
    if (replyTo?.refusal) throw replyTo.refusal;
    const reply = (body: object) => publishJson(replyTopicOf(device, topic, replyTo), body, replyTo);
    /** MQTT 5 request/response: a request with a Response Topic is answered even when NETPIE would say nothing. */
    const answers = replyTo?.topic !== undefined;
    switch (topic) {
      case '@shadow/data/get':
        // The payload is meant to be empty (reference §3.2); whatever a client sends there is ignored.
        return reply(shadowReply(await shadowService.readShadow(device)));
      case '@shadow/data/update': {
        const request = parseJsonPayload(payload);
        // Merge is the default over MQTT (reference §3.2); an explicit `merged` wins, as over REST.
        const { applied, warnings, notice } = await shadowService.writeShadow(device, undefined, request, true);
        // A back-dated write changes nothing, so nothing is announced (reference §3.3: no "updated" event); but
        // what the schema converted or dropped is never silent (reference §11.1): it goes to the reply topic.
        // An applied one was announced on `@shadow/data/updated` by the shadow service, as every write is.
        if (!applied || !notice) {
          return warnings.length > 0 || answers ? reply({ deviceid: device.deviceid, applied, ...warningMembers(warnings) }) : undefined;
        }
        return answers ? reply(notice) : undefined;
      }
      case '@shadow/batch/update': {
        const { response } = await shadowService.writeBatch(device, undefined, parseJsonPayload(payload), true);
        // Without `ackid` NETPIE sends nothing back on success (reference §3.5); errors are always sent, and so are
        // warnings (reference §11.1), then without `ackid`.
        const { ackid, total, mints, maxts, applied, warnings, warningsOmitted } = response;
        if (ackid === undefined && warnings === undefined && !answers) return;
        return reply({ ...(ackid !== undefined ? { ackid } : {}), total, mints, maxts, applied, ...(warnings && { warnings, warningsOmitted }) });
      }
      case '@shadow/desired/get':
        // The device's own desired document and delta, as GET /v2/device/shadow/desired answers it; the payload is ignored.
        if (!desired) throw new AppError('INVALID_TOPIC', 'desired state is not served here');
        return reply(desiredReply(await desired.read(device)));
    }
  }

  async function serveNow(device: Device, topic: RequestTopic, payload: Buffer, replyTo?: ShadowReplyTo): Promise<void> {
    const started = process.hrtime.bigint();
    let code: string | undefined;
    try {
      await handle(device, topic, payload, replyTo);
    } catch (err) {
      const body = errorReply(err, topic, payload, (internal) =>
        logger.error({ err: internal, deviceid: device.deviceid, topic }, 'mqtt shadow request failed'),
      );
      code = body.code;
      // A refused Response Topic cannot carry the error about itself: it goes to the request's own reply topic.
      const errorTopic = replyTo?.refusal ? privateTopic(device.deviceid, REPLY_TOPIC[topic]) : replyTopicOf(device, topic, replyTo);
      await publishJson(errorTopic, body, replyTo).catch((publishErr: unknown) =>
        logger.warn({ err: publishErr, deviceid: device.deviceid, topic }, 'mqtt shadow error reply not delivered'),
      );
    }
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    logger.debug({ deviceid: device.deviceid, topic, code, ms }, 'mqtt shadow request');
  }

  return {
    isRequest: isRequestTopic,
    serve(device, topic, payload, replyTo) {
      if (!isRequestTopic(topic)) return Promise.resolve();
      const { deviceid } = device;
      const served = (queues.get(deviceid) ?? Promise.resolve()).then(() => serveNow(device, topic, payload, replyTo));
      queues.set(deviceid, served);
      return served.finally(() => {
        if (queues.get(deviceid) === served) queues.delete(deviceid);
      });
    },
  };
}

/**
 * The REST error body (docs/limits-and-errors.md "Errors", without `requestId`). A batch error starts with the request's `ackid` when
 * it has a usable one, as NETPIE's own batch errors do (reference §3.4).
 */
function errorReply(err: unknown, topic: RequestTopic, payload: Buffer, logInternal: (err: unknown) => void): ErrorBody {
  const body = errorBodyOf(err, logInternal);
  const ackid = topic === '@shadow/batch/update' ? ackIdOf(payload) : undefined;
  return ackid === undefined ? body : { ackid, ...body };
}

function ackIdOf(payload: Buffer): string | number | undefined {
  try {
    const parsed: unknown = parseJsonPayload(payload);
    return isJsonObject(parsed) && AckId.is(parsed.ackid) ? parsed.ackid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A request payload as JSON, read like a REST body (docs/device-api.md "Request bodies"). The limit is the broker's PUBLISH limit,
 * which equals the REST limit of a single write and is below the REST batch limit (1 MiB).
 */
function parseJsonPayload(payload: Buffer): unknown {
  if (payload.length > MESSAGE_LIMITS.maxPayloadBytes) {
    throw new AppError('PAYLOAD_TOO_LARGE', `payload is larger than ${MESSAGE_LIMITS.maxPayloadBytes} bytes`);
  }
  return parseJson(payload, 'strict', 'payload');
}

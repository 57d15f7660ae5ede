import type { Aedes, Client, PublishPacket, Subscription } from 'aedes';
import { AppError, toErrorBody } from '../../core/errors';
import { Device } from '../../devices/device';
import { MESSAGE_LIMITS } from '../../messaging/limits';
import {
  applicationPrivateTopic,
  feedUpdatedTopic,
  groupTopic,
  MSG,
  PRIVATE,
  privateTopic,
  shadowUpdatedTopic,
  statusChangedTopic,
  topicProblem,
} from '../../messaging/topics';
import { HookContext } from '../hook-context';
import { markServed } from '../served';
import { ApplicationConnection } from './application-connection';
import { REASON } from '../v5/reason-codes';
import { refuseSubscription } from '../v5/suback';
import { parseTap, redacted, TAP_REQUESTS, TAP_WATCHES, TapTopic } from './tap-topics';

type Done = Parameters<Aedes['authorizePublish']>[2];

/** The replies an application gets under its own `@private/` (netpie reference §3.7). */
const REPLIES = {
  shadow: 'shadow/data/get/response',
  update: 'shadow/data/update/response',
  status: 'device/status/get/response',
  error: 'error',
} as const;

/**
 * True when a CONNECT is an application's: ClientID `{key}-{anything}` with the key as username, as NETPIE's Node-RED
 * nodes connect (`{key}-{process start time}`). Device ids never take that form: a device logs in with its own id.
 */
export function isApplicationLogin(clientId: string, username: string | undefined): username is string {
  return username !== undefined && username.length > 0 && clientId.startsWith(`${username}-`) && CLIENT_SUFFIX.test(clientId.slice(username.length + 1));
}

/** What may follow `{key}-` in an application's ClientID: it becomes a level of internal topics, so no `/`, `+` or `#`. */
const CLIENT_SUFFIX = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Requests, writes and subscriptions of application connections: each `@tap/...` topic names one device by id and
 * token, checked by devices/admission.ts `onBehalf` (the guessing limits, the device's state, the key's reach) before
 * anything is served, and never logged or echoed with its token. A refused request is answered on the application's
 * `@private/error` with the REST error body and the topic masked; MQTT 5 also gets PUBACK 0x87 (MQTT 3.1.1 has no
 * negative acknowledgement [MQTT-3.3.5-2], and an application is not disconnected for a bad request).
 */
export function createFlowChannel(ctx: HookContext) {
  const { admission, logger, shadowTopics, bus, presence } = ctx;

  const reply = (conn: ApplicationConnection, rest: string, body: object) =>
    bus.publish(applicationPrivateTopic(conn.clientId, rest), Buffer.from(JSON.stringify(body)));

  /** The request's error on the application's `@private/error`, then its acknowledgement (or MQTT 5's 0x87). */
  function refuse(client: Client, conn: ApplicationConnection, packet: PublishPacket, err: unknown, done: Done): void {
    const topic = redacted(packet.topic);
    const refusal = err instanceof AppError ? err : new AppError('BACKEND_UNAVAILABLE', 'the request could not be served; try again later');
    if (!(err instanceof AppError)) logger.warn({ app: conn.app.key, topic, err }, 'flow request failed');
    else logger.info({ app: conn.app.key, topic, code: refusal.code, why: refusal.message }, 'flow request refused');
    void reply(conn, REPLIES.error, { ...toErrorBody(refusal), topic })
      .catch((publishErr: unknown) => logger.warn({ app: conn.app.key, err: publishErr }, 'flow error notice not delivered'))
      .then(() => (client.version === 5 ? done(new Error(refusal.message)) : served(packet, done)));
  }

  /** Completes a request served here: acknowledged as its QoS asks, then published where no one listens. */
  function served(packet: PublishPacket, done: Done): void {
    markServed(packet);
    done(null);
  }

  const payloadOf = (packet: PublishPacket) => (Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload));

  return {
    /**
     * SUBSCRIBE: `@private/...` (its own replies), or a `@tap/...` watch of a device within reach; anything else is
     * refused with SUBACK 0x80 (MQTT 5: 0x87, or 0x97 for a spent quota) [MQTT-3.9.3-2]. Rewritten in place, as a
     * device's filters are (authorize-subscribe.ts).
     */
    subscribe(conn: ApplicationConnection, sub: Subscription, done: (err: Error | null, sub: Subscription | null) => void): void {
      const shown = redacted(sub.topic);
      const refused = (reasonCode: number, why: string) => {
        logger.info({ app: conn.app.key, topic: shown, why }, 'flow subscription refused');
        refuseSubscription(sub, reasonCode, why);
        done(null, null);
      };
      const quota = admission.subscribe(conn.app);
      if (quota) return refused(REASON.QUOTA_EXCEEDED, quota.message);
      const own = internalPrivateFilter(conn, sub.topic);
      if (own !== undefined) {
        sub.topic = own;
        return done(null, sub);
      }
      const tap = parseTap(sub.topic, TAP_WATCHES);
      if (!tap) return refused(REASON.NOT_AUTHORIZED, 'applications may subscribe to @private/... and @tap/{shadow/updated,device/changed,feed/updated,msg/topic}/{deviceid}:{token}[/topic]');
      admission.onBehalf(conn.source, conn.app, tap, false).then(
        (device) => {
          const written = sub.topic;
          try {
            sub.topic = watchedFilter(tap, device);
          } catch (err) {
            return refused(REASON.TOPIC_FILTER_INVALID, (err as Error).message);
          }
          conn.watches.set(written, { filter: sub.topic, device });
          done(null, sub);
        },
        (err: unknown) => refused(REASON.NOT_AUTHORIZED, err instanceof AppError ? err.message : 'the device could not be checked; try again later'),
      );
    },

    /**
     * PUBLISH: a `@tap/...` request, write or message for one device within reach, served in the order the
     * connection sent them (`inTurn`); messages go through `enqueue`, the device's own path (authorize-publish.ts).
     */
    publish(
      client: Client,
      conn: ApplicationConnection,
      packet: PublishPacket,
      done: Done,
      enqueue: (device: Device, topic: string, refused: (err: unknown) => void) => Promise<void>,
    ): Promise<void> {
      const tap = parseTap(packet.topic, TAP_REQUESTS);
      if (!tap) {
        refuse(client, conn, packet, new AppError('INVALID_TOPIC', 'applications may publish only to @tap/{shadow/get,shadow/update,device/get,msg/topic,private/topic}/{deviceid}:{token}[/topic]'), done);
        return Promise.resolve();
      }
      const message = tap.kind === 'msg/topic' || tap.kind === 'private/topic';
      return admission.onBehalf(conn.source, conn.app, tap, !message).then(
        (device) => {
          const payload = payloadOf(packet);
          switch (tap.kind) {
            case 'shadow/get':
              void shadowTopics.serve(device, '@shadow/data/get', payload, { topic: applicationPrivateTopic(conn.clientId, REPLIES.shadow) }).then(() => served(packet, done));
              return;
            case 'shadow/update':
              void shadowTopics.serve(device, '@shadow/data/update', payload, { topic: applicationPrivateTopic(conn.clientId, REPLIES.update) }).then(() => served(packet, done));
              return;
            case 'device/get': {
              const { deviceid, projectid, groupid, enabled } = device;
              void reply(conn, REPLIES.status, { deviceid, projectid, groupid, status: presence.statusOf(device), enabled })
                .catch((err: unknown) => logger.warn({ app: conn.app.key, deviceid, err }, 'flow status reply not delivered'))
                .then(() => served(packet, done));
              return;
            }
            case 'msg/topic':
            case 'private/topic': {
              const family = tap.kind === 'msg/topic' ? MSG : PRIVATE;
              const problem = topicProblem(tap.rest, false, family);
              if (problem) return refuse(client, conn, packet, new AppError('INVALID_TOPIC', problem), done);
              if (payload.length > MESSAGE_LIMITS.maxPayloadBytes) {
                return refuse(client, conn, packet, new AppError('PAYLOAD_TOO_LARGE', `payload is larger than ${MESSAGE_LIMITS.maxPayloadBytes} bytes`), done);
              }
              // The device's own rate limit and its project's messages quota, as if it had published the message.
              const refusal = admission.publish(device, `${family}/${tap.rest}`, payload.length);
              if (refusal) return refuse(client, conn, packet, refusal, done);
              const topic = family === MSG ? groupTopic(device, tap.rest) : privateTopic(device.deviceid, tap.rest);
              return enqueue(device, topic, (err) => refuse(client, conn, packet, err, done));
            }
          }
        },
        (err: unknown) => refuse(client, conn, packet, err, done),
      );
    },
  };
}

/** The internal filter of an application's subscription once its device is admitted. */
function watchedFilter(tap: TapTopic<(typeof TAP_WATCHES)[number]>, device: Device): string {
  switch (tap.kind) {
    case 'shadow/updated':
      return shadowUpdatedTopic(device.deviceid);
    case 'device/changed':
      return statusChangedTopic(device.deviceid);
    case 'feed/updated':
      return feedUpdatedTopic(device.deviceid);
    case 'msg/topic': {
      const problem = topicProblem(tap.rest, true, MSG);
      if (problem) throw new AppError('INVALID_TOPIC', problem);
      return groupTopic(device, tap.rest);
    }
  }
}

/**
 * UNSUBSCRIBE: the internal filter an application's `@private/...` filter, or a `@tap/...` watch it was granted, is
 * stored under (the watch as it was admitted: its token is not checked again), the watch then gone; undefined for any
 * other filter.
 */
export function applicationFilter(conn: ApplicationConnection, filter: string): string | undefined {
  const own = internalPrivateFilter(conn, filter);
  if (own !== undefined) return own;
  const watch = conn.watches.get(filter);
  conn.watches.delete(filter);
  return watch?.filter;
}

/** `@private/...` of the connection itself, as an internal filter; undefined for any other filter. */
function internalPrivateFilter(conn: ApplicationConnection, filter: string): string | undefined {
  if (!filter.startsWith(`${PRIVATE}/`)) return undefined;
  const rest = filter.slice(PRIVATE.length + 1);
  return topicProblem(rest, true, PRIVATE) ? undefined : applicationPrivateTopic(conn.clientId, rest);
}

export type FlowChannel = ReturnType<typeof createFlowChannel>;

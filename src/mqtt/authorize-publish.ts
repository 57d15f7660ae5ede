import type { Aedes, Client, PublishPacket } from 'aedes';
import { AppError } from '../core/errors';
import { Device } from '../devices/device';
import { acceptPublish } from '../messaging/device-publish';
import { messagePropertiesOf } from '../messaging/properties';
import { publishErrorNotice } from './error-notice';
import { PUSH_TOPIC, servePush } from './push-topic';
import { createRefusalNotices } from './refusal-notice';
import { ApplicationConnection } from './flow-channel/application-connection';
import { createFlowChannel } from './flow-channel/flow-channel';
import { HookContext } from './hook-context';
import { markServed, SERVED_TOPIC } from './served';
import { REASON } from './v5/reason-codes';
import { disconnecting } from './v5/refusals';
import { shadowReplyTo } from './v5/shadow-response';


const payloadOf = (payload: string | Buffer) => (Buffer.isBuffer(payload) ? payload : Buffer.from(payload));

type Done = Parameters<Aedes['authorizePublish']>[2];

/**
 * PUBLISH, as a short list of steps: admission (the rate limit and the messages quota, devices/admission.ts), then
 * the requests the service serves itself and never forwards (shadow requests, `@push`), then the message: accepted
 * by messaging's topic rule (`@msg/...` of the device's group, messaging/device-publish.ts) and taken through the
 * message pipeline (message-pipeline.ts: retained, queued for persistent sessions, on the backbone, delivered here)
 * before aedes answers, so PUBACK [MQTT-4.3.2-2] and PUBREC [MQTT-4.3.3-2] are sent only for a message that no crash
 * can lose. aedes itself would send PUBACK before it stores anything.
 *
 * Refusing a PUBLISH closes the connection: MQTT 3.1.1 has no negative acknowledgement [MQTT-3.3.5-2], so the reason
 * goes out on `@private/error` first (refusal-notice.ts, error-notice.ts). MQTT 5 clients get PUBACK/PUBREC 0x87 with
 * the reason instead, and stay connected, except over a limit or without the backbone (DISCONNECT 0x96, 0x97, 0x89:
 * the `disconnecting` refusals, sent by v5/refusals.ts guardPublish).
 */
export function authorizePublishHook(ctx: HookContext): Aedes['authorizePublish'] {
  const { scopes, logger } = ctx;
  const refusals = createRefusalNotices(ctx.bus, logger);
  const admitInTurn = inConnectionOrder();
  const qos2 = exactlyOnce(ctx);
  const flow = createFlowChannel(ctx);

  /** The rate limit and the messages quota; a closed client's publish is its Last Will, one per connection, so exempt. */
  function admit(client: Client, scope: Device, packet: PublishPacket, done: Done): boolean {
    const refusal = client.closed ? undefined : ctx.admission.publish(scope, packet.topic, packet.payload.length);
    if (!refusal) return true;
    const reason = refusal.code === 'RATE_LIMITED' ? REASON.MESSAGE_RATE_TOO_HIGH : REASON.QUOTA_EXCEEDED;
    void refusals.tell(scope.deviceid, refusal).then((notice) => done(disconnecting(reason, notice.message)));
    return false;
  }

  /**
   * Shadow requests and `@push`: served here, answered on the device's own topics, then completed without being
   * forwarded; aedes still acknowledges them as their QoS asks, once served. Their size is checked by their readers,
   * which answer with an error instead of closing the connection.
   */
  function servedHere(scope: Device, packet: PublishPacket, done: Done): boolean {
    const { topic } = packet;
    const payload = payloadOf(packet.payload);
    let served: Promise<void>;
    if (ctx.shadowTopics.isRequest(topic)) {
      served = ctx.shadowTopics.serve(scope, topic, payload, shadowReplyTo(scope, packet.properties)); // MQTT 5 Response Topic
    } else if (topic === PUSH_TOPIC) {
      served = servePush(ctx, scope, payload);
    } else {
      return false;
    }
    markServed(packet);
    void served.then(() => done(null), done);
    return true;
  }

  /** A message for subscribers: messaging's topic rule, then the pipeline, in the order the connection sent them. */
  function accept(client: Client, scope: Device, packet: PublishPacket, done: Done): void {
    let topic: string;
    try {
      topic = acceptPublish(scope, packet.topic, packet.payload.length);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      logger.info({ deviceid: scope.deviceid, topic: packet.topic, why: err.message }, 'mqtt publish refused');
      return done(new Error(err.message));
    }
    const refused = (err: unknown) => {
      const refusal = err instanceof AppError ? err : new AppError('BACKEND_UNAVAILABLE', 'the message could not be stored; publish again later');
      logger.info({ deviceid: scope.deviceid, topic, code: refusal.code, err }, 'mqtt publish refused');
      void publishErrorNotice(ctx.bus, scope.deviceid, new AppError(refusal.code, `${refusal.message}; disconnected`, refusal.extra), logger)
        .then(() => done(refusal.code === 'BACKEND_UNAVAILABLE' ? disconnecting(REASON.SERVER_BUSY, refusal.message) : new Error(refusal.message)));
    };
    admitInTurn(client, () => enqueue(client, packet, topic, done, refused));
  }

  /**
   * A message on its internal `topic` into the pipeline: acknowledged once kept (`done`), or `refused`. Resolves once
   * the message is handed to the pipeline, which keeps the order from there on.
   */
  async function enqueue(client: Client, packet: PublishPacket, topic: string, done: Done, refused: (err: unknown) => void): Promise<void> {
    const message = {
      topic,
      payload: payloadOf(packet.payload),
      qos: packet.qos,
      retain: packet.retain,
      // MQTT 5: what every subscriber gets, here and on the other nodes.
      properties: messagePropertiesOf(packet.properties),
      clientId: client.id,
    };
    const served = () => {
      markServed(packet);
      done(null);
    };
    const answered = (outcome: Promise<unknown>) => {
      ctx.publishesInFlight.add(outcome);
      void outcome.finally(() => ctx.publishesInFlight.delete(outcome));
    };
    // A will is published once, by aedes at close; no acknowledgement goes with it.
    if (packet.qos !== 2 || client.closed) return answered(ctx.pipeline.accept(message).then(served, refused));
    let handed!: () => void;
    const inPipeline = new Promise<void>((resolve) => (handed = resolve));
    const outcome = qos2(client, packet.messageId, () => {
      const accepted = ctx.pipeline.accept(message);
      handed();
      return accepted;
    });
    answered(outcome.then(served, refused));
    await Promise.race([inPipeline, outcome.catch(() => undefined)]);
  }

  /** An application's request (flow-channel/flow-channel.ts), in the order its connection sent them. */
  function fromApplication(client: Client, conn: ApplicationConnection, packet: PublishPacket, done: Done): void {
    admitInTurn(client, () => flow.publish(client, conn, packet, done, (_device, topic, refused) => enqueue(client, packet, topic, done, refused)));
  }

  return (client, packet, done) => {
    const conn = client && ctx.apps.get(client);
    if (conn) return fromApplication(client, conn, packet, done);
    const scope = client && scopes.get(client);
    if (!client || !scope) return done(new Error('not authenticated'));
    if (!admit(client, scope, packet, done)) return;
    if (servedHere(scope, packet, done)) return;
    accept(client, scope, packet, done);
  };
}

/**
 * Exactly once for QoS 2 [MQTT-4.3.3-2]: a PUBLISH whose packet identifier is stored already, or is being accepted
 * right now (a retransmission after a reconnection may overtake the first copy), is not published again; it settles
 * as the first copy did, and aedes answers it with PUBREC. A new one (within the client's in-flight cap,
 * mqtt/v5/inbound.ts) goes through the pipeline, and only then is its packet identifier stored: a crash in between
 * loses no acknowledged message, and its retransmission comes in as new, the one case of a QoS 2 message delivered
 * twice (docs/production.md "What survives what").
 */
function exactlyOnce(ctx: HookContext) {
  /** By ClientID, not connection: the retransmission comes on the next connection. */
  const accepting = new Map<string, Map<number, Promise<void>>>();
  return (client: Client, messageId: number | undefined, accept: () => Promise<void>): Promise<void> => {
    const id = messageId ?? -1;
    const ofClient = accepting.get(client.id) ?? new Map<number, Promise<void>>();
    accepting.set(client.id, ofClient);
    const pending = ofClient.get(id);
    if (pending) return pending;
    const outcome = (async () => {
      const seen = await ctx.store.incomingGetPacket(client, { messageId }).then(() => true, () => false);
      if (seen) return;
      await accept();
      await ctx.store.incomingStorePacket(client, { cmd: 'publish', topic: SERVED_TOPIC, qos: 2, messageId });
    })();
    ofClient.set(id, outcome);
    const forget = () => {
      if (ofClient.get(id) === outcome) ofClient.delete(id);
      if (ofClient.size === 0 && accepting.get(client.id) === ofClient) accepting.delete(client.id);
    };
    outcome.then(forget, forget);
    return outcome;
  };
}

/**
 * aedes authorises a whole socket read of packets at once; the admissions of one connection run in turn, so its
 * messages enter the pipeline, which keeps order from there on, in the order they were sent ([MQTT-4.6.0-6]). An
 * admission ends once its message is handed to the pipeline, not once it is delivered.
 */
function inConnectionOrder() {
  const turns = new WeakMap<Client, Promise<unknown>>();
  return (client: Client, admit: () => Promise<void>) => {
    const turn = (turns.get(client) ?? Promise.resolve()).then(admit);
    turns.set(client, turn.catch(() => undefined));
  };
}

import { Aedes, AuthenticateError, Client } from 'aedes';
import type { Logger } from 'pino';
import { authenticateDevice } from '../devices/authenticate';
import { secretsEqual } from '../devices/credentials';
import { Device } from '../devices/device';
import { DeviceStore, SessionControl } from '../devices/port';
import { Presence } from '../devices/presence';
import { AppError } from '../errors';
import { MESSAGE_LIMITS } from '../messaging/limits';
import { MessageBus, MessageRelay, RelayedMessage } from '../messaging/port';
import {
  deviceTopic,
  externalTopic,
  internalFilter,
  internalTopic,
  isDeviceFacing,
  malformedFilter,
  MSG,
  privateTopic,
  Scope,
  topicProblem,
} from '../messaging/topics';
import { MqttMessageQuota } from '../quotas/mqtt-message-quota';
import { ERROR_NOTICE_TOPIC, MqttPublishLimit } from '../ratelimit/mqtt-publish-limit';
import { ShadowService } from '../shadows/service';
import { createShadowTopics } from './mqtt-shadow-topics';

/** A filter aedes accepts but authorizeSubscribe always refuses; stands in for filters aedes would choke on. */
const REFUSED_FILTER = '$openpie/refused';
/** Where served shadow requests end: no subscription can match it, since every device filter is rewritten into a scope. */
const SERVED_TOPIC = '$openpie/served';

export interface AedesBrokerDeps {
  devices: DeviceStore;
  presence: Presence;
  shadowService: ShadowService;
  logger: Logger;
  /** The per-device rate limit of publishes; none when absent. */
  publishLimit?: MqttPublishLimit;
  /** The messages quota of each device's project (issue 5 §5); none when absent. */
  messageQuota?: MqttMessageQuota;
  /** Carries accepted device publishes to the other nodes (the MQTT backbone); a single node has none. */
  relay?: MessageRelay;
}

export interface AedesBroker {
  aedes: Aedes;
  /** Publishes to this node's connections only. */
  bus: MessageBus;
  sessions: SessionControl;
  /** Delivers a message from another node to this node's connections, with its QoS and retain flag. */
  deliver(message: RelayedMessage): Promise<void>;
  /** Closes every session whose device was deleted, disabled, banned, moved or given a new token since it connected. */
  recheckSessions(): Promise<void>;
  close(): Promise<void>;
}

/** CONNACK 5, "not authorized" [MQTT-3.2.2-3]: what NETPIE answers for every refused key (netpie reference §3.1). */
const NOT_AUTHORIZED = 5;
/** CONNACK 3, "server unavailable": the project's messages quota is spent (README "Quotas"). */
const SERVER_UNAVAILABLE = 3;

/**
 * The device-facing broker (issue 2, section 4). Devices connect with ClientID = deviceid, username = token and
 * password = secret or empty. Every topic and filter is rewritten into the device's scope on the way in and back on
 * the way out (see messaging/topics.ts), so groups and private channels stay apart.
 */
export async function createAedesBroker(deps: AedesBrokerDeps): Promise<AedesBroker> {
  const { devices, presence, shadowService, logger, publishLimit, relay, messageQuota } = deps;
  /** The authenticated device of each connection; it is also the connection's scope. */
  const scopes = new WeakMap<Client, Device>();
  /** Each connection's last relay: publishes complete in the order they came (see relayInTurn). */
  const relaying = new WeakMap<Client, Promise<void>>();

  const aedes = await Aedes.createBroker({
    // Device ids are 36-character UUIDs; MQTT 3.1 capped ClientIDs at 23 characters, aedes keeps that cap by default.
    maxClientsIdLength: 128,
    // A second connection with the same ClientID takes over and the first is closed [MQTT-3.1.4-2]; aedes does it.
    preConnect(client, _packet, done) {
      rewriteFilters(client, scopes);
      done(null, true);
    },

    authenticate(client, username, password, done) {
      const refuse = (why: string, returnCode = NOT_AUTHORIZED) => {
        logger.info({ deviceid: client.id, why }, 'mqtt connection refused');
        const err = new Error(why) as AuthenticateError;
        err.returnCode = returnCode;
        done(err, false);
      };
      authenticateDevice(devices, client.id, username ?? '').then(
        (device) => {
          const given = password?.toString() ?? '';
          if (given !== '' && !secretsEqual(given, device.secret)) return refuse('wrong secret');
          const accept = () => {
            scopes.set(client, device);
            done(null, true);
          };
          if (!messageQuota) return accept();
          messageQuota.connect(device).then(
            (refusal) => (refusal ? refuse(refusal.message, SERVER_UNAVAILABLE) : accept()),
            () => refuse('store unavailable'),
          );
        },
        // A refused device (unknown, wrong token, disabled) is not authorized; a registry that cannot answer (Cassandra
        // unreachable) is return code 3, "Server unavailable" (MQTT 3.1.1 §3.2.2.3), so the client retries later.
        (err: unknown) => {
          if (err instanceof AppError && err.status < 500) return refuse(err.code);
          refuse(err instanceof AppError ? err.code : 'store unavailable', SERVER_UNAVAILABLE);
        },
      );
    },

    // Refusing a PUBLISH closes the connection: MQTT 3.1.1 has no negative acknowledgement [MQTT-3.3.5-2].
    authorizePublish(client, packet, done) {
      const scope = client && scopes.get(client);
      if (!scope) return done(new Error('not authenticated'));
      // Over the rate limit: the reason goes out on @private/error before the connection closes. A closed client's
      // publish is its Last Will, one per connection, so it is not limited.
      if (publishLimit && !client.closed && !publishLimit.allowPublish(scope.deviceid)) {
        return void publishLimit.refusePublish(scope.deviceid, bus).then(() => done(new Error('rate limited')));
      }
      // Over the messages quota: likewise, the refusal on @private/error, then the connection closes.
      if (messageQuota && !client.closed && !messageQuota.allowPublish(scope, packet.topic, packet.payload.length)) {
        return void messageQuota.refusePublish(scope, bus).then(() => done(new Error('quota exceeded')));
      }
      if (shadowTopics.isRequest(packet.topic)) {
        // Served here, answered on the device's own topics, then completed without being forwarded: aedes still
        // acknowledges it as its QoS asks, once the request is served. Its size is checked by the request's reader,
        // which answers with an error instead of closing the connection.
        const topic = packet.topic;
        packet.topic = SERVED_TOPIC;
        packet.retain = false;
        const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
        return void shadowTopics.serve(scope, topic, payload).then(() => done(null));
      }
      const parsed = deviceTopic(packet.topic);
      const problem =
        parsed?.family !== MSG
          ? `devices may publish only to ${MSG}/...`
          : (topicProblem(parsed.rest, false, parsed.family) ??
            (packet.payload.length > MESSAGE_LIMITS.maxPayloadBytes ? 'payload too large' : undefined));
      if (problem || !parsed) {
        logger.info({ deviceid: scope.deviceid, topic: packet.topic, why: problem }, 'mqtt publish refused');
        return done(new Error(problem));
      }
      packet.topic = internalTopic(scope, parsed.family, parsed.rest);
      if (!relay) return done(null);
      const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
      relayInTurn(client, relay, { topic: packet.topic, payload, qos: packet.qos, retain: packet.retain }).then(
        () => done(null),
        // A QoS 1 or 2 publish is acknowledged only once the backbone has it. Without the backbone the device hears
        // why on @private/error, then its connection closes, and its client sends the message again later.
        (err: unknown) => {
          logger.info({ deviceid: scope.deviceid, topic: packet.topic, err }, 'mqtt publish refused: the backbone is unavailable');
          const notice = { status: 503, code: 'BACKEND_UNAVAILABLE', message: 'the message backbone is unavailable; disconnected, publish again later' };
          bus
            .publish(privateTopic(scope.deviceid, ERROR_NOTICE_TOPIC), Buffer.from(JSON.stringify(notice)))
            .catch(() => undefined)
            .then(() => done(new Error('backbone unavailable')));
        },
      );
    },

    // A refused filter gets SUBACK 0x80 and the connection stays up [MQTT-3.9.3-2]. The filter is rewritten in
    // place: aedes then looks up retained messages and stores persistent subscriptions under the internal topic.
    // A persistent session's restored subscriptions arrive here already internal, and stay in the device's scope.
    authorizeSubscribe(client, sub, done) {
      const scope = scopes.get(client);
      const internal = scope && internalFilter(scope, externalTopic(scope, sub.topic) ?? sub.topic);
      if (internal === undefined) {
        logger.info({ deviceid: client.id, topic: sub.topic }, 'mqtt subscription refused');
        return done(null, null);
      }
      if (messageQuota && scope && !messageQuota.allowSubscribe(scope)) {
        logger.info({ deviceid: client.id, topic: sub.topic }, 'mqtt subscription refused: messages quota spent');
        return done(null, null);
      }
      sub.topic = internal;
      done(null, sub);
    },

    authorizeForward(client, packet) {
      const scope = scopes.get(client);
      if (!scope) return null;
      // Queued messages of a persistent session come back already external (deliverQueuedWithExternalTopics).
      if (isDeviceFacing(packet.topic)) return packet;
      const topic = externalTopic(scope, packet.topic);
      if (topic !== undefined) messageQuota?.delivered(scope, topic, packet.payload.length);
      return topic === undefined ? null : { ...packet, topic };
    },
  });

  deliverQueuedWithExternalTopics(aedes, scopes);

  // Presence counts client objects, not ids: a client that hangs up right after CONNECT can be reported
  // disconnected before it is reported ready, and must then not count as online.
  const online = new WeakSet<Client>();
  aedes.on('clientReady', (client) => {
    if (client.closed || online.has(client)) return;
    online.add(client);
    presence.connected(client.id);
    logger.debug({ deviceid: client.id }, 'mqtt client connected');
  });
  aedes.on('clientDisconnect', (client) => {
    if (!online.delete(client)) return;
    presence.disconnected(client.id);
    logger.debug({ deviceid: client.id }, 'mqtt client disconnected');
  });
  aedes.on('clientError', (client, err) => logger.debug({ deviceid: client.id, err: err.message }, 'mqtt client error'));

  const bus: MessageBus = {
    publish: (topic, payload) =>
      new Promise((resolve, reject) =>
        aedes.publish({ cmd: 'publish', topic, payload, qos: 0, retain: false, dup: false }, (err) => (err ? reject(err) : resolve())),
      ),
  };
  const shadowTopics = createShadowTopics({ shadowService, bus, logger });

  const clients = () => (aedes as unknown as { clients: Record<string, Client | undefined> }).clients;

  /**
   * Relays of one connection are sent at once, in order, but complete in turn: a QoS 0 message never reaches local
   * subscribers before a QoS 1 message published before it, still waiting for the backbone (ordered topics,
   * [MQTT-4.6.0-6]). aedes authorises a whole socket read of packets concurrently, hence the chain.
   */
  function relayInTurn(client: Client, via: MessageRelay, message: RelayedMessage): Promise<void> {
    const sent = via.relay(message);
    sent.catch(() => undefined);
    const turn = (relaying.get(client) ?? Promise.resolve()).then(() => sent);
    relaying.set(client, turn.catch(() => undefined));
    return turn;
  }

  return {
    aedes,
    bus,
    deliver: ({ topic, payload, qos, retain }) =>
      new Promise((resolve, reject) => {
        if (aedes.closed) return resolve();
        aedes.publish({ cmd: 'publish', topic, payload, qos, retain, dup: false }, (err) => (err ? reject(err) : resolve()));
      }),
    async recheckSessions() {
      for (const client of Object.values(clients())) {
        const connectedAs = client && scopes.get(client);
        if (!client || !connectedAs) continue;
        // A store that does not answer leaves the session as it is; the next recheck or kick will see to it.
        const now = await devices.getDevice(connectedAs.deviceid).catch(() => connectedAs);
        const reason = sessionEndReason(connectedAs, now);
        if (reason === undefined || client.closed) continue;
        logger.info({ deviceid: connectedAs.deviceid, reason }, 'mqtt session closed by the service');
        client.close();
      }
    },
    sessions: {
      disconnectDevice(deviceid, reason) {
        const client = clients()[deviceid];
        if (!client) return;
        logger.info({ deviceid, reason }, 'mqtt session closed by the service');
        client.close();
      },
    },
    close: () => new Promise<void>((resolve) => aedes.close(() => resolve())),
  };
}

/** Why a device connected as `connectedAs` may no longer keep its session, as the registry's kicks would say. */
function sessionEndReason(connectedAs: Device, now: Device | undefined): string | undefined {
  if (!now) return 'device deleted';
  if (!now.enabled) return 'device disabled';
  if (now.banned) return 'device banned';
  if (now.token !== connectedAs.token) return 'token rotated';
  if (now.groupid !== connectedAs.groupid || now.projectid !== connectedAs.projectid) return 'device moved to another group';
  return undefined;
}

/**
 * A persistent session's queued QoS 1/2 messages are written by aedes as they were queued, under the internal topic
 * (its queue path asks authorizeForward only yes or no); so the queue is read back with the topics the device
 * knows. The queue of a client only holds what its own, in-scope subscriptions matched.
 */
function deliverQueuedWithExternalTopics(aedes: Aedes, scopes: WeakMap<Client, Scope>): void {
  const persistence = (aedes as unknown as { persistence: { outgoingStream(client: Client): AsyncIterable<{ topic: string }> } })
    .persistence;
  const queued = persistence.outgoingStream.bind(persistence);
  persistence.outgoingStream = (client) => {
    const scope = scopes.get(client);
    return (async function* external() {
      for await (const packet of queued(client)) {
        const topic = scope && externalTopic(scope, packet.topic);
        if (topic !== undefined) yield { ...packet, topic };
      }
    })();
  };
}

interface FilterPacket {
  cmd: string;
  unsubscriptions?: string[];
  subscriptions?: { topic: string }[];
}

/**
 * Two things aedes offers no hook for, done on each packet as it is parsed, before aedes handles it (relies on
 * the client's parser, aedes 1.x `client._parser`, pinned by the lockfile and covered by the ACL tests):
 * - UNSUBSCRIBE filters are rewritten like subscriptions, since aedes keeps subscriptions under internal topics;
 * - a SUBSCRIBE filter that aedes itself would reject by closing the connection (`a/#/b`, `a+`) is swapped for one
 *   that authorizeSubscribe refuses, so the client gets SUBACK 0x80 for it like for any refused filter.
 */
function rewriteFilters(client: Client, scopes: WeakMap<Client, Scope>): void {
  const parser = (client as unknown as { _parser: NodeJS.EventEmitter })._parser;
  parser.prependListener('packet', (packet: FilterPacket) => {
    if (packet.cmd === 'subscribe') {
      for (const sub of packet.subscriptions ?? []) {
        if (malformedFilter(sub.topic)) sub.topic = REFUSED_FILTER;
      }
    }
    const scope = scopes.get(client);
    if (packet.cmd !== 'unsubscribe' || !scope || !packet.unsubscriptions) return;
    packet.unsubscriptions = packet.unsubscriptions.map((filter) => internalFilter(scope, filter) ?? filter);
  });
}

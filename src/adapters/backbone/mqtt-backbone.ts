import { isLeft } from 'fp-ts/Either';
import * as t from 'io-ts';
import mqtt, { IClientPublishOptions, IPublishPacket, MqttClient } from 'mqtt';
import type { Logger } from 'pino';
import { ClusterPresence, createClusterPresence, PresenceReport } from '../../devices/cluster-presence';
import { SessionControl } from '../../devices/port';
import { Presence } from '../../devices/presence';
import { AppError } from '../../core/errors';
import { ReadinessCheck } from '../../health/port';
import { ChangeNoticeCodec } from '../../cluster/codecs';
import { ChangeFeed, ChangeNotice } from '../../cluster/port';
import {
  BACKBONE_FILTER,
  byeTopic,
  changedTopic,
  rateTopic,
  helloTopic,
  kickTopic,
  messageTopic,
  parseBackboneTopic,
  presenceTopic,
} from './backbone-topics';
import { MessageRelay, RelayedMessage, ShareDistribution } from '../../messaging/port';
import { RateUsage, RateUsageExchange } from '../../ratelimit/shared-rate-limit';
import { backboneClientOptions } from './backbone-client';
import { createConfirmedPublisher } from './mqtt-confirmed-publish';
import { createMqttShareDistribution } from './mqtt-share-distribution';
import { createMqttConnectionGathering } from './mqtt-connection-gathering';
import { CONNECTION_LOG_LIMITS } from '../../connections/limits';
import { ConnectionGathering } from '../../connections/port';
import { relayedMessageOf, toBackbone } from './backbone-properties';

/** Timings of the backbone connection, in the units their names say. */
export const BACKBONE_DEFAULTS = {
  /** How long a confirmed publish waits for the backbone's PUBACK before it is refused with 503. */
  ackTimeoutMs: 3000,
  reconnectPeriodMs: 1000,
  connectTimeoutMs: 5000,
  /** The broker declares a silent node gone, and publishes its Last Will, after 1.5 times this [MQTT-3.1.2-22]. */
  keepaliveSeconds: 10,
  /**
   * How long the broker keeps this node's session after the connection drops, queueing the QoS 1 messages and kicks
   * meant for it (MQTT 5 Session Expiry Interval, §3.1.2.11.2): a short network cut loses nothing acknowledged.
   */
  sessionExpirySeconds: 120,
  /** REST calls (for `livenessttl`) are shared with the other nodes at most this often. */
  touchIntervalMs: 1000,
  /** How long the connection inspector waits for the other nodes' answers (connections/limits.ts). */
  gatherTimeoutMs: CONNECTION_LOG_LIMITS.gatherTimeoutMs,
};

export interface MqttBackboneOptions {
  /** mqtt://, mqtts://, ws:// or wss://, without credentials. */
  url: string;
  username?: string;
  password?: string;
  /** This node's name on the backbone: one topic level, unique in the cluster. */
  nodeId: string;
  /** This node's own presence; the backbone wraps it so that `statusOf` counts the other nodes too. */
  presence: Presence;
  logger: Logger;
  timings?: Partial<typeof BACKBONE_DEFAULTS>;
}

/** What the backbone needs of this node's device-facing broker. */
export interface LocalBroker {
  /** Delivers a message another node accepted to this node's device connections, and to no other node. */
  deliver(message: RelayedMessage): Promise<void>;
  /** Closes this node's sessions of a device. */
  sessions: SessionControl;
  /** Closes sessions whose device has lost its right to them, for kicks sent while this node was cut off. */
  recheckSessions(): Promise<void>;
  /** Another node left the backbone (it said bye, or its Last Will did), or is on it again. */
  nodeLeft(node: string): void;
  nodeBack(node: string): void;
}

export interface MqttBackbone {
  /** Presence for the whole node: its own devices, and the ones the other nodes report. */
  readonly presence: Presence;
  /** The broker's hook for what devices publish here. */
  readonly relay: MessageRelay;
  /** MQTT 5 shared subscriptions across the nodes (mqtt-share-distribution.ts). */
  readonly shares: ShareDistribution;
  /**
   * Connects and delivers what other nodes send into `local`. Returns the cluster's session control (for the
   * registry's kicks); messages go out through `relay`, which the broker calls for every message it accepts.
   */
  join(local: LocalBroker): { sessions: SessionControl };
  /** Change notices of shared state (src/cluster/port.ts), to and from the other nodes. */
  readonly changes: ChangeFeed;
  /** What each node's devices took of their rate limit, so a device has one budget in the cluster (ratelimit/). */
  readonly rateUsage: RateUsageExchange;
  /** The other nodes' parts of a device's connections, for the connection inspector (mqtt-connection-gathering.ts). */
  readonly connections: ConnectionGathering;
  /** Ready once connected and subscribed (both connections). */
  readonly readiness: ReadinessCheck;
  /** Tells the others this node leaves, ends its backbone session; idempotent. */
  close(): Promise<void>;
}

const KickCommand = t.exact(t.type({ reason: t.string }));

const unavailable = (why: string) =>
  new AppError('BACKEND_UNAVAILABLE', `the message backbone is unavailable (${why}); the message was not accepted, send it again`);

/**
 * The MQTT backbone (issue 4 §2): several nodes behind a load balancer act as one service. Each node keeps its own
 * aedes for its device connections; every @msg and @private message accepted on one node is published here, and every
 * node delivers what the others publish to its own connections. Presence and kicks travel the same way.
 *
 * - One MQTT 5 connection per node, ClientID `openpie-{nodeId}`, a persistent session (sessionExpirySeconds) and
 *   one subscription, `openpie/v1/#`, with No Local (a node never gets its own publishes back, §3.8.3.1) and Retain
 *   As Published (retained messages stay retained on every node whose sessions are its own). The origin node, the
 *   QoS and the message's identity (broker id and counter, the key of its queue entries in a shared session store)
 *   ride along as user properties.
 * - A message is on the backbone before this node delivers it (mqtt/message-pipeline.ts); QoS 1/2 messages wait for
 *   the backbone's PUBACK and are refused (503 BACKEND_UNAVAILABLE, or the connection closed for MQTT) without it.
 *   QoS 0 messages are delivered here at once and sent on when the backbone is up.
 * - Messages from other nodes are acknowledged to the backbone only once this node's broker has taken them.
 * - MQTT 5 shared subscriptions of devices go over a second connection, `shares` (mqtt-share-distribution.ts); a
 *   hand-on it sends (user property `share`) is for those connections only, and ignored here.
 */
export function createMqttBackbone(options: MqttBackboneOptions): MqttBackbone {
  const { url, username, password, nodeId, logger } = options;
  const timings = { ...BACKBONE_DEFAULTS, ...options.timings };
  const log = logger.child({ backbone: url, nodeId });
  const cluster: ClusterPresence = createClusterPresence(options.presence, {
    nodeId,
    touchIntervalMs: timings.touchIntervalMs,
    now: Date.now,
  });
  const client: MqttClient = mqtt.connect(url, {
    ...backboneClientOptions(username, password, timings),
    clientId: `openpie-${nodeId}`,
    clean: false,
    properties: { sessionExpiryInterval: timings.sessionExpirySeconds },
    will: { topic: byeTopic(nodeId), payload: Buffer.alloc(0), qos: 1, retain: false },
  });

  /** Connected and subscribed. */
  let ready = false;
  /** Counts connections, so that the setup of one that already dropped never marks a later one ready. */
  let connections = 0;
  let joined = false;
  let closing: Promise<void> | undefined;
  /** Connected, and not leaving: mqtt.js refuses publishes once it is ending. */
  const usable = () => client.connected && !closing;
  const confirmed = createConfirmedPublisher(client, timings.ackTimeoutMs, unavailable);
  const shares = createMqttShareDistribution({ url, username, password, nodeId, logger: log, timings });
  /** The last connection problem logged, so a broker that stays down is one log line, not one a second. */
  let lastProblem: string | undefined;
  const changeListeners: ((notice: ChangeNotice | 'all') => void)[] = [];
  const changed = (notice: ChangeNotice | 'all') => changeListeners.forEach((listener) => listener(notice));
  const rateListeners: ((usage: RateUsage) => void)[] = [];
  const gathering = createMqttConnectionGathering({
    nodeId,
    logger: log,
    timeoutMs: timings.gatherTimeoutMs,
    publish(topic, payload) {
      if (!usable()) return false;
      client.publish(topic, payload, { qos: 0 });
      return true;
    },
  });

  /** Puts a message accepted on this node on the backbone; `confirm`: wait for the PUBACK (see MessageRelay). */
  async function send(message: RelayedMessage, confirm: boolean): Promise<void> {
    const topic = messageTopic(message.topic);
    if (topic === undefined) return;
    const identity: Record<string, string> = message.id ? { broker: message.id.broker, counter: String(message.id.counter) } : {};
    const opts: IClientPublishOptions = {
      retain: message.retain,
      properties: toBackbone(message.properties, { origin: nodeId, qos: String(message.qos), ...identity }),
    };
    if (confirm) {
      if (closing) throw unavailable('the node is stopping');
      return confirmed.publish(topic, message.payload, opts);
    }
    if (usable()) client.publish(topic, message.payload, { ...opts, qos: 0 });
    else log.debug({ topic: message.topic }, 'QoS 0 message not relayed: the backbone is down');
  }

  /** Fire and forget at QoS 1: mqtt.js keeps it until the broker has it, across reconnects. */
  const publishControl = (topic: string, body: object | undefined) => {
    if (!closing) client.publish(topic, body === undefined ? Buffer.alloc(0) : JSON.stringify(body), { qos: 1 });
  };

  /** A rate report: tokens by device id, each a positive count. */
  const RateUsageCodec = t.record(t.string, t.number);

  function decodeJson<A>(codec: t.Decoder<unknown, A>, payload: Buffer): A | undefined {
    try {
      const decoded = codec.decode(JSON.parse(payload.toString('utf8')));
      return isLeft(decoded) ? undefined : decoded.right;
    } catch {
      return undefined;
    }
  }

  /** What another node sent. Nothing it holds is trusted more than a device's input: every payload is decoded. */
  async function receive(local: LocalBroker, packet: IPublishPacket): Promise<void> {
    const parsed = parseBackboneTopic(packet.topic);
    const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
    if (!parsed) return log.debug({ topic: packet.topic }, 'unknown backbone topic ignored');
    switch (parsed.kind) {
      case 'message': {
        const { origin, share } = packet.properties?.userProperties ?? {};
        // No Local keeps this node's own messages away; the origin is checked anyway, so none is delivered twice. A
        // hand-on (`share`) is for the members of one share only, which the share connections deliver to.
        if (origin === nodeId || share !== undefined) return;
        return local.deliver(relayedMessageOf(packet, parsed.internalTopic));
      }
      case 'presence': {
        if (parsed.node === nodeId) return;
        local.nodeBack(parsed.node);
        gathering.nodeSeen(parsed.node);
        const report = decodeJson(PresenceReport, payload);
        if (!report) return log.warn({ node: parsed.node }, 'malformed presence report ignored');
        for (const deviceid of cluster.apply(parsed.node, report)) {
          local.sessions.disconnectDevice(deviceid, 'session taken over on another node');
        }
        return;
      }
      case 'hello':
        if (parsed.node === nodeId) return;
        local.nodeBack(parsed.node);
        gathering.nodeSeen(parsed.node);
        publishControl(presenceTopic(nodeId), cluster.fullReport());
        return;
      case 'bye':
        if (parsed.node === nodeId) return;
        cluster.forgetNode(parsed.node);
        gathering.nodeGone(parsed.node);
        local.nodeLeft(parsed.node);
        return;
      case 'kick': {
        const kick = decodeJson(KickCommand, payload);
        local.sessions.disconnectDevice(parsed.deviceid, `${kick?.reason ?? 'kicked'} (on another node)`);
        return;
      }
      case 'flush':
        return;
      case 'inspect':
        return gathering.asked(parsed.node, payload);
      case 'inspected':
        return gathering.answered(parsed.node, payload);
      case 'rate': {
        if (parsed.node === nodeId) return;
        const usage = decodeJson(RateUsageCodec, payload);
        if (!usage) return log.warn({ node: parsed.node }, 'malformed rate usage ignored');
        return rateListeners.forEach((listener) => listener(usage));
      }
      case 'changed': {
        if (parsed.node === nodeId) return;
        const notice = decodeJson(ChangeNoticeCodec, payload);
        // A notice this node cannot read may still have been about something it holds: drop every copy.
        return changed(notice ?? 'all');
      }
    }
  }

  async function onConnect(local: LocalBroker, sessionPresent: boolean, firstConnection: boolean): Promise<void> {
    const connection = ++connections;
    // Retain Handling 1: retained messages come only with a new subscription, not again with a resumed session.
    // (With `resubscribe: false` mqtt.js keeps no list of subscriptions, so this SUBSCRIBE is always sent.)
    const [granted] = await client.subscribeAsync(BACKBONE_FILTER, { qos: 1, nl: true, rap: true, rh: 1 });
    // 0x80 and up: refused, e.g. by the broker's ACL for this user [MQTT-3.9.3].
    if (granted === undefined || granted.qos >= 0x80) throw new Error(`the broker refused the subscription to ${BACKBONE_FILTER}`);
    publishControl(presenceTopic(nodeId), cluster.fullReport());
    publishControl(helloTopic(nodeId), undefined);
    // Without the old session, kicks and change notices sent while this node was away are lost: check every session
    // against the store, and read shared state afresh.
    if (!firstConnection && !sessionPresent) {
      changed('all');
      await local.recheckSessions();
    }
    if (connection !== connections || !client.connected) return;
    ready = true;
    lastProblem = undefined;
    log.info({ sessionPresent }, 'mqtt backbone connected');
  }

  const sessionsOf = (local: LocalBroker): SessionControl => ({
    disconnectDevice(deviceid, reason) {
      local.sessions.disconnectDevice(deviceid, reason);
      publishControl(kickTopic(deviceid), { reason });
    },
  });

  return {
    presence: cluster.presence,
    relay: { relay: (message) => send(message, message.qos > 0) },
    shares,

    join(local) {
      if (joined) throw new Error('the backbone is joined once');
      joined = true;
      client.handleMessage = (packet, done) => {
        receive(local, packet).then(
          () => done(),
          (err: unknown) => {
            log.warn({ err, topic: packet.topic }, 'message from the backbone not delivered');
            done();
          },
        );
      };
      let firstConnection = true;
      client.on('connect', (connack) => {
        const first = firstConnection;
        firstConnection = false;
        onConnect(local, connack.sessionPresent, first).catch((err: unknown) =>
          log.warn({ err }, 'mqtt backbone connected, but subscribing failed; retrying with the next connection'),
        );
      });
      client.on('close', () => {
        if (ready && !closing) log.warn('mqtt backbone connection lost; reconnecting');
        ready = false;
        confirmed.refuseAll('connection lost');
        cluster.forgetOtherNodes();
        gathering.forgetNodes();
      });
      client.on('error', (err) => {
        if (err.message === lastProblem) return;
        lastProblem = err.message;
        log.warn({ err: err.message }, 'mqtt backbone unreachable; retrying');
      });
      cluster.reportTo((report) => {
        // While cut off, changes are not queued: the full report sent on reconnection covers them.
        if (usable()) publishControl(presenceTopic(nodeId), report);
      });
      client.connect();
      shares.connect();
      return { sessions: sessionsOf(local) };
    },

    changes: {
      announce: (notice) => publishControl(changedTopic(nodeId), notice),
      listen: (listener) => void changeListeners.push(listener),
    },

    // QoS 0: a report lost while the backbone is cut off only lets the devices of that moment take a little more.
    rateUsage: {
      report: (usage) => {
        if (!closing && usable()) client.publish(rateTopic(nodeId), JSON.stringify(usage), { qos: 0 });
      },
      listen: (listener) => void rateListeners.push(listener),
    },

    connections: gathering,

    readiness: {
      name: 'backbone',
      async check() {
        if (!ready || !shares.connected()) throw new Error(`not connected to the MQTT backbone at ${url}`);
      },
    },

    close: () =>
      (closing ??= (async () => {
        await shares.close();
        cluster.close();
        if (client.connected) {
          // A clean DISCONNECT suppresses the Last Will, so the others hear it from the node itself; expiry 0 ends
          // the session at once instead of queueing for a node that is gone.
          await confirmed.publish(byeTopic(nodeId), Buffer.alloc(0), {}).catch(() => undefined);
          await Promise.race([
            client.endAsync(false, { reasonCode: 0, properties: { sessionExpiryInterval: 0 } }),
            new Promise((resolve) => setTimeout(resolve, timings.ackTimeoutMs).unref()),
          ]);
        }
        await client.endAsync(true);
        ready = false;
      })()),
  };
}

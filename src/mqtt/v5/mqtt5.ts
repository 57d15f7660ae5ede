import type { Aedes, AedesOptions, Client, ConnectPacket } from 'aedes';
import type { Logger } from 'pino';
import {
  beforeAedesHandles,
  closeAfterParsing,
  interceptOutgoingPackets,
  persistenceOf,
  setServerKeepAlive,
  subscriptionIdentifiersOf,
  WirePacket,
  writePacket,
} from '../aedes2-patches';
import type { Writable } from 'node:stream';
import { ShareDistribution } from '../../messaging/port';
import { deviceTopic, filterMatches, internalTopic, ownNoticeTopic, Scope } from '../../messaging/topics';
import { connectionOf, Connections } from './connection';
import { createIncomingState } from './incoming-state';
import { createInbound } from './inbound';
import { MQTT_LIMITS } from './limits';
import { createOutbound } from './outbound';
import { REASON } from './reason-codes';
import { guardPublish } from './refusals';
import { createSharedSubscriptions } from './shared-subscriptions';
import { completeSuback, expandRepeated } from './suback';

/**
 * MQTT 5 on top of aedes 2.0.0-beta.1 (docs/mqtt.md "MQTT 5"), and the aedes 1.2.0 security fixes that beta lacks.
 * aedes does most of MQTT 5 itself; this adds what it leaves out: flow control both ways, message expiry on live
 * delivery, the client's maximum packet size, outbound topic aliases, Server Keep Alive per client, and the cleanup
 * of inbound QoS 2 state. The broker wires it in broker.ts: `options` into aedes, `connecting` from preConnect,
 * `guardPublish` around authorizePublish, `attach` once aedes exists.
 */
export interface Mqtt5Deps {
  logger: Logger;
  /** The device each connection authenticated as (hook-context.ts). */
  scopes: WeakMap<Client, Scope>;
  /** Shared subscriptions across the nodes (the MQTT backbone); without it a share spans this node. */
  shares?: ShareDistribution;
}

export function createMqtt5({ logger, scopes, shares: distribution }: Mqtt5Deps) {
  const connections: Connections = new WeakMap();
  const dropped = new WeakSet<object>();
  let broker: Aedes | undefined;
  const aedes = () => broker as Aedes;
  const incoming = createIncomingState(aedes, logger);
  const outbound = createOutbound({ persistence: () => persistenceOf(aedes()), identifiersFor, logger });
  const inbound = createInbound({ incoming, dropped, acknowledged: outbound.acknowledged, logger });
  const shares = createSharedSubscriptions({ scopes, logger, aedes, distribution });

  /** `$share/...` filters of an MQTT 5 SUBSCRIBE or UNSUBSCRIBE, as parsed; a Protocol Error ends the connection. */
  function rewriteShares(client: Client, packet: WirePacket): void {
    if ((packet.cmd !== 'subscribe' && packet.cmd !== 'unsubscribe') || shares.rewrite(client, packet)) return;
    // The SUBSCRIBE is never answered: its subscriptions are held back by guardSubscribe while the connection closes.
    for (const sub of packet.subscriptions as { topic: string }[]) {
      dropped.add(sub);
      sub.topic = '$openpie/dropped';
    }
    const reasonString = 'No Local is not allowed on a shared subscription [MQTT-3.8.3-4]';
    closeAfterParsing(() => client.disconnect({ reasonCode: REASON.PROTOCOL_ERROR, properties: { reasonString } }));
  }

  /** [MQTT-3.3.4-4]: the identifiers of all matching subscriptions, when more than one has one. */
  function identifiersFor(client: Client, topic: string): number[] | undefined {
    const internal = internalTopicOf(scopes.get(client), topic);
    if (internal === undefined) return undefined;
    const ids = subscriptionIdentifiersOf(client).flatMap(([filter, id]) => (filterMatches(filter, internal) ? [id] : []));
    return ids.length > 1 ? [...new Set(ids)] : undefined;
  }

  /** Every packet aedes writes to a client (aedes2-patches.ts interceptOutgoingPackets). */
  function outgoing(client: Client, packet: WirePacket, stream: Writable, opts: object | undefined): boolean {
    const conn = connections.get(client);
    if (!conn) return writePacket(packet, stream, opts);
    const { cmd } = packet;
    if (cmd === 'puback' || cmd === 'pubcomp' || cmd === 'pubrec') {
      inbound.completed(client, conn, cmd, packet.messageId as number, ((packet.reasonCode as number | undefined) ?? 0) >= 0x80);
    }
    if (conn.version !== 5) return writePacket(cmd === 'suback' ? expandRepeated(conn, packet) : packet, stream, opts);
    if (cmd === 'publish') return outbound.publish(client, conn, packet as Parameters<typeof outbound.publish>[2], stream, opts);
    const sent = cmd === 'connack' ? advertised(packet) : cmd === 'suback' ? expandRepeated(conn, completeSuback(conn, packet)) : packet;
    return writePacket(sent, stream, outbound.ackOptions(client) ?? opts);
  }

  return {
    /** aedes' own MQTT 5 options (mqtt/v5/limits.ts). */
    options: {
      maximumPacketSize: MQTT_LIMITS.maximumPacketSize,
      receiveMaximum: MQTT_LIMITS.inflightInbound,
      topicAliasMaximum: MQTT_LIMITS.topicAliasMaximum,
      sessionExpiryIntervalLimit: MQTT_LIMITS.sessionExpiryMax,
    } satisfies Partial<AedesOptions>,

    /** From preConnect, for every CONNECT. */
    connecting(client: Client, packet: ConnectPacket): void {
      const conn = connectionOf(packet);
      connections.set(client, conn);
      // [MQTT-3.2.2-21]: the client must use the Server Keep Alive; 0 (none) would leave a dead connection online.
      const keepalive = packet.keepalive ?? 0;
      if (conn.version === 5 && (keepalive === 0 || keepalive > MQTT_LIMITS.serverKeepAliveMax)) {
        setServerKeepAlive(client, MQTT_LIMITS.serverKeepAliveMax);
      }
      beforeAedesHandles(client, inbound.listener(client, conn));
      if (conn.version === 5) beforeAedesHandles(client, (packet) => rewriteShares(client, packet));
    },

    guardPublish: (hook: Aedes['authorizePublish']) => guardPublish(hook, dropped),

    /** Wraps authorizeSubscribe: shared subscriptions (shared-subscriptions.ts), and subscriptions never to answer. */
    guardSubscribe(hook: Aedes['authorizeSubscribe']): Aedes['authorizeSubscribe'] {
      const guarded = shares.guardSubscribe(hook);
      return (client, sub, done) => (dropped.has(sub) ? undefined : guarded(client, sub, done));
    },

    /** First step of a shutdown: the shares' messages go to members on other nodes from now on. */
    leaveShares: () => shares.leaveAll(),

    /** Once, right after the broker is created and before any client connects. */
    attach(created: Aedes): void {
      broker = created;
      interceptOutgoingPackets(created, outgoing);
      shares.attach(created);
      // A clean start drops the old session's inbound QoS 2 state after the takeover of an older connection, as aedes
      // 1.2.0 does ('client' is emitted once the ClientID is registered, before CONNACK); a session that ends with its
      // connection (clean) drops it then (incoming-state.ts); one that expires is ended in the store (session-timers.ts).
      created.on('client', (client) => {
        if (connections.get(client)?.cleanStart) void incoming.clear(client);
      });
      created.on('clientDisconnect', (client) => {
        if (client.clean) void incoming.clear(client);
      });
    },
  };
}

export type Mqtt5 = ReturnType<typeof createMqtt5>;

/** The internal topic of a topic as the device of `scope` sees it, or undefined. */
function internalTopicOf(scope: Scope | undefined, topic: string): string | undefined {
  if (!scope) return undefined;
  const notice = ownNoticeTopic(scope.deviceid, topic);
  if (notice !== undefined) return notice;
  const parsed = deviceTopic(topic);
  return parsed && internalTopic(scope, parsed.family, parsed.rest);
}

/** A successful MQTT 5 CONNACK says shared subscriptions are available (aedes says they are not, §3.2.2.3.13). */
function advertised(connack: WirePacket): WirePacket {
  const properties = connack.properties as Record<string, unknown> | undefined;
  if (connack.reasonCode !== 0 || properties?.sharedSubscriptionAvailable !== false) return connack;
  return { ...connack, properties: { ...properties, sharedSubscriptionAvailable: true } };
}

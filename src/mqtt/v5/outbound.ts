import type { Client } from 'aedes';
import type { Logger } from 'pino';
import type { Writable } from 'node:stream';
import { encodedSize, SessionPersistence, WirePacket, writePacket } from '../aedes2-patches';
import { Connection } from './connection';
import { MQTT_LIMITS } from './limits';
import { REASON } from './reason-codes';

type PublishPacket = WirePacket & {
  topic: string;
  qos: number;
  messageId?: number;
  properties?: Record<string, unknown>;
  /** aedes' absolute expiry time (ms), set when the message was published with a Message Expiry Interval. */
  messageExpiry?: number;
};

interface OutboundDeps {
  persistence: () => SessionPersistence;
  /** The identifiers of all the client's subscriptions that match `topic` (as sent), when there are several. */
  identifiersFor(client: Client, topic: string): number[] | undefined;
  logger: Logger;
}

/**
 * What the broker sends an MQTT 5 client, at the moment it goes on the wire (aedes2-patches.ts
 * interceptOutgoingPackets), for what aedes 2.0.0-beta.1 leaves undone:
 * - Receive Maximum [MQTT-3.3.4-9]: no more unacknowledged QoS 1/2 publishes than the client allows; the rest wait,
 *   in order, for its PUBACK/PUBCOMP (aedes advertises but does not enforce it, moscajs/aedes#829);
 * - Message Expiry [MQTT-3.3.2-5] [MQTT-3.3.2-6]: a message that expired while it waited is not sent, and one that is
 *   sent says how long it has left;
 * - the client's Maximum Packet Size [MQTT-3.1.2-24] [MQTT-3.1.2-25]: a publish that would exceed it is dropped as if
 *   it had been delivered, and acknowledgements lose their Reason String and User Properties first (mqtt-packet does
 *   that when given the limit) (moscajs/aedes#1125);
 * - the Will Delay Interval is a will property of CONNECT (§3.1.3.2.2), not a PUBLISH property (§3.3.2.3): aedes
 *   forwards it inside the will (moscajs/aedes#1098), and strict clients refuse the packet, so it is taken out;
 * - every matching subscription's identifier [MQTT-3.3.4-3] [MQTT-3.3.4-4]: aedes sends one copy of a message that
 *   several subscriptions match, with one of their identifiers (moscajs/aedes#828);
 * - topic aliases on what it sends (topic-aliases.ts).
 */
export function createOutbound({ persistence, identifiersFor, logger }: OutboundDeps) {
  /** Sends `packet`, holds it back, or drops it; true unless the stream asks to wait (backpressure). */
  function publish(client: Client, conn: Connection, packet: PublishPacket, stream: Writable, opts: object | undefined): boolean {
    const id = packet.qos > 0 ? packet.messageId : undefined;
    if (id !== undefined && !conn.outbound?.has(id) && (conn.outbound?.size ?? 0) >= client.receiveMaximum) {
      return holdBack(client, conn, { packet, stream, opts });
    }
    const identified = conn.identified || packet.properties?.subscriptionIdentifier !== undefined;
    const message = asSent(packet, identified ? identifiersFor(client, packet.topic) : undefined);
    if (!message) return discard(client, packet, 'expired before it could be sent');
    if (client.maximumPacketSize !== undefined && exceeds(message, client.maximumPacketSize)) {
      return discard(client, packet, `larger than the client's Maximum Packet Size of ${client.maximumPacketSize} bytes`);
    }
    if (id !== undefined) (conn.outbound ??= new Set()).add(id);
    return writePacket(conn.aliases ? conn.aliases.apply(message) : message, stream, opts);
  }

  function holdBack(client: Client, conn: Connection, held: NonNullable<Connection['waiting']>[number]): boolean {
    const waiting = (conn.waiting ??= []);
    waiting.push(held);
    if (waiting.length > MQTT_LIMITS.outboundWaitingMax) {
      waiting.length = 0;
      const reasonString = `more than ${MQTT_LIMITS.outboundWaitingMax} messages wait for your acknowledgements`;
      logger.info({ deviceid: client.id, why: reasonString }, 'mqtt connection closed');
      client.disconnect({ reasonCode: REASON.QUOTA_EXCEEDED, properties: { reasonString } });
    }
    return true;
  }

  /** [MQTT-3.1.2-25]: behave as if it was sent and acknowledged, so a persistent session does not keep it forever. */
  function discard(client: Client, packet: PublishPacket, why: string): boolean {
    logger.debug({ deviceid: client.id, topic: packet.topic, why }, 'mqtt message not sent');
    if (packet.messageId !== undefined && packet.qos > 0 && !client.clean) {
      persistence()
        .outgoingClearMessageId(client, { messageId: packet.messageId })
        .catch((err: unknown) => logger.warn({ deviceid: client.id, err }, 'mqtt: a dropped message stays queued'));
    }
    return true;
  }

  return {
    publish,

    /** The client acknowledged one of the broker's QoS 1/2 publishes: send what waited for room. */
    acknowledged(client: Client, conn: Connection, messageId: number): void {
      const { outbound, waiting } = conn;
      if (!outbound?.delete(messageId) || !waiting) return;
      while (waiting.length > 0 && outbound.size < client.receiveMaximum) {
        if (client.closed || !client.connected) return void (waiting.length = 0);
        const { packet, stream, opts } = waiting.shift()!;
        publish(client, conn, packet as PublishPacket, stream, opts);
      }
    },

    /** Write options that let mqtt-packet drop an acknowledgement's Reason String to fit the client's limit. */
    ackOptions: (client: Client) =>
      client.maximumPacketSize === undefined ? undefined : { protocolVersion: 5, properties: { maximumPacketSize: client.maximumPacketSize } },
  };
}

/** The packet as this client gets it, or undefined once it has expired. Never changes the shared `properties`. */
function asSent(packet: PublishPacket, identifiers: number[] | undefined): PublishPacket | undefined {
  const properties = packet.properties;
  const left = packet.messageExpiry === undefined ? undefined : packet.messageExpiry - Date.now();
  if (left !== undefined && left <= 0) return undefined;
  const stale = properties && (properties.willDelayInterval !== undefined || 'topicAlias' in properties);
  if (left === undefined && !stale && !identifiers) return packet;
  const { willDelayInterval: _delay, topicAlias: _alias, ...kept } = properties ?? {};
  if (left !== undefined) kept.messageExpiryInterval = Math.ceil(left / 1000);
  if (identifiers) kept.subscriptionIdentifier = identifiers;
  return { ...packet, properties: kept };
}

/** Only computed when the client's limit is below the largest packet the broker could send it. */
function exceeds(packet: PublishPacket, maximum: number): boolean {
  return maximum < MQTT_LIMITS.maximumPacketSize + 16 * 1024 && encodedSize(packet, 5) > maximum;
}

export type Outbound = ReturnType<typeof createOutbound>;

import type { Client } from 'aedes';
import type { Logger } from 'pino';
import { closeAfterParsing, type WirePacket } from '../aedes2-patches';
import { Connection } from './connection';
import { IncomingState } from './incoming-state';
import { MQTT_LIMITS } from './limits';
import { REASON } from './reason-codes';
import { repeatedFilters, subscribed } from './suback';

/** What a client sends that matters to flow control, as the parser hands it over, before aedes handles it. */
interface InboundDeps {
  incoming: IncomingState;
  /** Packets aedes must not act on: the authorizePublish guard drops them (refusals.ts). */
  dropped: WeakSet<object>;
  /** The client acknowledged a QoS 1/2 publish of the broker: the next held-back one may go (outbound.ts). */
  acknowledged(client: Client, conn: Connection, messageId: number): void;
  logger: Logger;
}

const FAILED = 0x80;

/**
 * Counts the client's QoS 1/2 publishes in flight and refuses the one that exceeds the limit (MQTT_LIMITS.inflightInbound):
 * - MQTT 5 counts QoS 1 and 2 against the advertised Receive Maximum, and answers DISCONNECT 0x93 (the client must not
 *   send more [MQTT-3.3.4-7], §3.3.4, §4.9);
 * - MQTT 3.1/3.1.1 counts QoS 2 publishes waiting for PUBREL, and closes the connection, as aedes 1.2.0 does
 *   (GHSA-5jvp-3p2v-5qgf): it has no reason code to send.
 * A resent publish (same packet id, still in flight) takes no second slot. Slots are freed when the broker sends
 * PUBACK, PUBCOMP or a failed PUBREC (outbound.ts calls `completed`).
 */
export function createInbound({ incoming, dropped, acknowledged, logger }: InboundDeps) {
  function admit(client: Client, conn: Connection, packet: WirePacket & { qos: number; messageId: number }): void {
    const counted = conn.version === 5 || packet.qos === 2;
    if (!counted) return;
    const inbound = (conn.inbound ??= new Map());
    if (inbound.has(packet.messageId)) return;
    if (inbound.size >= MQTT_LIMITS.inflightInbound) {
      dropped.add(packet);
      const why = `more than ${MQTT_LIMITS.inflightInbound} QoS ${conn.version === 5 ? '1 and 2' : '2'} publishes in flight`;
      logger.info({ deviceid: client.id, why }, 'mqtt connection closed');
      closeAfterParsing(() =>
        conn.version === 5 ? client.disconnect({ reasonCode: REASON.RECEIVE_MAXIMUM_EXCEEDED, properties: { reasonString: why } }) : client.close(),
      );
      return;
    }
    inbound.set(packet.messageId, packet.qos === 2 ? 2 : 1);
    if (packet.qos === 2) incoming.stored(client.id, packet.messageId);
  }

  return {
    /** The parser's listener for one client (aedes2-patches.ts beforeAedesHandles). */
    listener: (client: Client, conn: Connection) => (packet: WirePacket) => {
      const messageId = packet.messageId as number;
      switch (packet.cmd) {
        case 'publish':
          if ((packet.qos as number) > 0) admit(client, conn, packet as WirePacket & { qos: number; messageId: number });
          return;
        case 'puback':
        case 'pubcomp':
          return acknowledged(client, conn, messageId);
        case 'subscribe':
          if (conn.version === 5) subscribed(conn, packet);
          repeatedFilters(conn, packet);
          return;
        case 'pubrec':
          // A failed PUBREC ends the QoS 2 exchange [MQTT-4.3.3-4]; a successful one leaves it to PUBCOMP.
          if (((packet.reasonCode as number | undefined) ?? 0) >= FAILED) acknowledged(client, conn, messageId);
          return;
      }
    },

    /** The broker answered one of the client's publishes: PUBACK, PUBCOMP, or a PUBREC (failed when `failed`). */
    completed(client: Client, conn: Connection, cmd: string, messageId: number, failed: boolean): void {
      const qos = conn.inbound?.get(messageId);
      const done = (cmd === 'puback' && qos === 1) || (qos === 2 && (cmd === 'pubcomp' || (cmd === 'pubrec' && failed)));
      if (!done) return;
      conn.inbound?.delete(messageId);
      if (qos === 2) incoming.released(client.id, messageId);
    },
  };
}

export type Inbound = ReturnType<typeof createInbound>;

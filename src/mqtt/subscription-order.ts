import type { Client } from 'aedes';
import type { Logger } from 'pino';
import { closeAfterParsing, gatePackets, WirePacket } from './aedes2-patches';
import { REASON } from './v5/reason-codes';

/** Packets a client may send while one of its SUBSCRIBE or UNSUBSCRIBE packets waits for its answer; more close it. */
export const PACKETS_WAITING_MAX = 1000;

interface Order {
  /** The packet identifier of the SUBSCRIBE or UNSUBSCRIBE being handled, until its SUBACK or UNSUBACK. */
  answering?: number;
  /** Packets that came after it, in order. */
  waiting: WirePacket[];
  /** Hands a packet to aedes. */
  handOver(packet: WirePacket): void;
}

const changesSubscriptions = (packet: WirePacket) => packet.cmd === 'subscribe' || packet.cmd === 'unsubscribe';

/**
 * A client's SUBSCRIBE and UNSUBSCRIBE packets take effect in the order it sent them (issue 17, found by the fuzzer).
 * aedes 2.0.0-beta.1 starts handling a packet as soon as it is parsed, while the ones before it may still be under
 * way: an UNSUBSCRIBE of a persistent session waits for the session store, and a SUBSCRIBE of the same filter sent
 * right after it can be in force first and then be removed, leaving the client without the subscription its last
 * packet asked for [MQTT-3.8.4-3] [MQTT-3.10.4-1]. Here, from a SUBSCRIBE or UNSUBSCRIBE until its SUBACK or UNSUBACK
 * is sent, the client's next packets wait, then go to aedes in the order they came. Packets that change no
 * subscription and follow none are not held.
 */
export function createSubscriptionOrder(logger: Logger) {
  const orders = new WeakMap<Client, Order>();

  /** Marks a packet that changes subscriptions as the one being answered; true: aedes may have it. */
  function admit(order: Order, packet: WirePacket): true {
    if (changesSubscriptions(packet)) order.answering = packet.messageId as number;
    return true;
  }

  function release(order: Order): void {
    while (order.answering === undefined && order.waiting.length > 0) {
      const packet = order.waiting.shift()!;
      admit(order, packet);
      order.handOver(packet);
    }
  }

  return {
    /** From preConnect. */
    connecting(client: Client): void {
      const order: Order = { waiting: [], handOver: () => undefined };
      orders.set(client, order);
      order.handOver = gatePackets(client, (packet) => {
        if (order.answering === undefined && order.waiting.length === 0) return admit(order, packet);
        order.waiting.push(packet);
        if (order.waiting.length > PACKETS_WAITING_MAX) {
          order.waiting.length = 0;
          const reasonString = `more than ${PACKETS_WAITING_MAX} packets sent while a SUBSCRIBE or UNSUBSCRIBE was answered`;
          logger.info({ deviceid: client.id, why: reasonString }, 'mqtt connection closed');
          closeAfterParsing(() => client.disconnect({ reasonCode: REASON.QUOTA_EXCEEDED, properties: { reasonString } }));
        }
        return false;
      });
    },

    /** A SUBACK or UNSUBACK is being sent (v5/mqtt5.ts, the outgoing packets): the packets after its request go on. */
    answered(client: Client, messageId: number): void {
      const order = orders.get(client);
      if (!order || order.answering !== messageId) return;
      order.answering = undefined;
      // Not from inside aedes' write of the acknowledgement; nothing for a connection closed meanwhile (aedes would
      // take a held CONNECT for the first one of a new connection).
      setImmediate(() => (client.closed ? void (order.waiting.length = 0) : release(order)));
    },
  };
}

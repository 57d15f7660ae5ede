import type { Aedes } from 'aedes';
import { AppError } from '../core/errors';
import { MessageRelay, RelayedMessage } from '../messaging/port';
import { MessageProperties } from '../messaging/properties';
import { retainedScopeOf } from '../messaging/topics';
import { SessionPacket, SessionStore } from '../sessions/port';
import { hasSubscribers, onEmit } from './aedes-patches';

/** A message as the service accepts it; `topic` is internal (messaging/topics.ts). */
export interface AcceptedMessage {
  topic: string;
  payload: Buffer;
  qos: 0 | 1 | 2;
  retain: boolean;
  /** MQTT 5 properties (messaging/properties.ts), kept with the message wherever it is queued. */
  properties?: MessageProperties;
  /** The publishing device's ClientID, for MQTT 5's No Local [MQTT-3.8.3-3]; none for REST, CoAP and hooks. */
  clientId?: string;
}

export interface MessagePipeline {
  /**
   * A message accepted on this node (a device's PUBLISH, REST, CoAP, a hook, a will): kept as retained, queued for
   * every persistent session it matches, carried to the other nodes, then handed to this node's connections. Resolves
   * once all of that is done, so an acknowledgement sent then (PUBACK, PUBREC, 2xx) promises no loss. Rejects with an
   * AppError (RETAINED_LIMIT, BACKEND_UNAVAILABLE) when refused: then no connection got it and no queue keeps it.
   */
  accept(message: AcceptedMessage): Promise<void>;
  /**
   * A message another node accepted, as the backbone brings it. Resolves once it is kept here (each node its own
   * sessions) or delivered (one shared session store); the delivery follows in order.
   */
  deliverRelayed(message: RelayedMessage): Promise<void>;
}

export interface MessagePipelineDeps {
  aedes: Aedes;
  store: SessionStore;
  /** True when every node reads this store (Redis): the node that accepts a message queues it, the others only deliver. */
  sharedStore: boolean;
  relay?: MessageRelay;
  retainedPerGroupLimit: number;
  /** Called with how many older messages full queues dropped. */
  onDropped(count: number): void;
}

interface Prepared {
  packet: SessionPacket;
  queuedFor: string[];
  /** Settles when the backbone has the message (at once without one, or for QoS 0). */
  relayed: Promise<void>;
}

/**
 * The one path of every accepted message (docs/mqtt.md "Persistent sessions"). Steps run in acceptance order for the
 * whole node: the stamp (broker id and counter, the message's identity in every queue and on every node), the
 * retained store, the queueing and the hand-over to the backbone in one chain, the local delivery in another that
 * waits for the backbone's acknowledgement. In that order a queue holds messages in the order they were accepted
 * [MQTT-4.6.0-6], and aedes, which drops a delivery whose counter is not above the last one a client got from that
 * broker id (its duplicate check for overlapping subscriptions), never sees a counter go back. A delivery waits for
 * the one before it to reach aedes' emitter (every connection has it then, in order), not for aedes' callback,
 * which comes an event-loop turn later: deliveries do not go one per turn.
 *
 * QoS 0 and QoS 1/2 messages are counted apart (`<aedes id>.q0`, `.q1`): the backbone may deliver a QoS 0 message
 * before a QoS 1 message sent earlier (the latter waits for the receiver's in-flight window), and each lane alone
 * keeps its order.
 */
export function createMessagePipeline({ aedes, store, sharedStore, relay, retainedPerGroupLimit, onDropped }: MessagePipelineDeps): MessagePipeline {
  const counters = { q0: 0, q1: 0 };
  let preparing: Promise<unknown> = Promise.resolve();
  let delivering: Promise<unknown> = Promise.resolve();
  /** Deliveries handed to aedes and not emitted yet, by broker id and counter. */
  const emitting = new Map<string, () => void>();
  const identity = (packet: { brokerId?: string; brokerCounter?: number }) => `${packet.brokerId}#${packet.brokerCounter}`;
  onEmit(aedes, (packet) => {
    if (emitting.size === 0) return;
    const key = identity(packet);
    emitting.get(key)?.();
    emitting.delete(key);
  });

  const stamp = (message: AcceptedMessage): SessionPacket => {
    const lane = message.qos > 0 ? 'q1' : 'q0';
    // MQTT 5 Message Expiry: the absolute time aedes drops a queued copy at and counts the interval left from [MQTT-3.3.2-5].
    const interval = message.properties?.messageExpiryInterval;
    const expiry = interval === undefined ? {} : { messageExpiry: Date.now() + interval * 1000 };
    return { cmd: 'publish', ...message, ...expiry, dup: false, brokerId: `${aedes.id}.${lane}`, brokerCounter: ++counters[lane] };
  };

  /**
   * Hands a stamped packet to this node's connections; aedes' own persistence steps are off (session-persistence.ts).
   * `emitted` settles once aedes has emitted it to them (or refused it), `done` once aedes calls back.
   */
  const deliverHere = (packet: SessionPacket): { emitted: Promise<void>; done: Promise<void> } => {
    if (aedes.closed) return { emitted: Promise.resolve(), done: Promise.resolve() };
    const key = identity(packet);
    const emitted = new Promise<void>((resolve) => emitting.set(key, resolve));
    const done = new Promise<void>((resolve, reject) => {
      aedes.publish({ ...packet } as Parameters<Aedes['publish']>[0], (err) => {
        emitting.get(key)?.();
        emitting.delete(key);
        if (err) reject(err);
        else resolve();
      });
    });
    return { emitted, done };
  };

  async function keep(packet: SessionPacket, limited: boolean): Promise<string[]> {
    if (packet.retain) {
      const scope = retainedScopeOf(packet.topic!);
      if (!limited) await store.storeRetained(packet);
      else if (!(await store.storeRetainedWithin(packet, scope, retainedPerGroupLimit))) {
        throw new AppError(
          'RETAINED_LIMIT',
          `this group already keeps ${retainedPerGroupLimit} retained messages; clear one (publish an empty retained message) first`,
        );
      }
    }
    if (packet.qos === 0) return [];
    const subs = await store.subscriptionsByTopic(packet.topic!);
    if (subs.length === 0) return [];
    const dropped = await store.outgoingEnqueueCombi(subs, packet);
    if (dropped > 0) onDropped(dropped);
    return subs.map((sub) => sub.clientId);
  }

  /**
   * Runs `prepare` in the preparing chain and the delivery in the delivering chain, each in call order. `kept`
   * settles once the message is prepared (stamped, kept retained, queued), `delivered` once aedes has delivered it
   * here.
   */
  function inOrder(prepare: () => Promise<Prepared>): { kept: Promise<void>; delivered: Promise<void> } {
    const prepared = preparing.then(prepare);
    preparing = prepared.catch(() => undefined);
    const handedOver = delivering.then(async () => {
      const { packet, queuedFor, relayed } = await prepared;
      try {
        await relayed;
      } catch (err) {
        // Refused: it must not wait in a queue either. Entries another node already sent stay (their PUBACK clears them).
        await store.outgoingDiscard(queuedFor, packet).catch(() => undefined);
        throw err;
      }
      return deliverHere(packet);
    });
    // The next delivery goes once this one is emitted (or failed); this caller waits for aedes' callback.
    delivering = handedOver.then(({ emitted }) => emitted).catch(() => undefined);
    return { kept: prepared.then(() => undefined), delivered: handedOver.then(({ done }) => done) };
  }

  return {
    accept(message) {
      // A message that is not retained, with no other node to carry it to, no subscription here and (QoS 1, 2) no
      // persistent session to queue it for, goes nowhere (a device's status notice nobody watches, issue 26 §4; a REST
      // publish to a topic no one follows, §3): it is done now, as the pipeline would find at its end.
      if (!relay && !message.retain && !hasSubscribers(aedes, message.topic) && (message.qos === 0 || store.hasSubscriptionsNow?.(message.topic) === false)) {
        return Promise.resolve();
      }
      return inOrder(async () => {
        const packet = stamp(message);
        const queuedFor = await keep(packet, true);
        // With a shared store the others find the message retained there; on the backbone it would be kept twice.
        const relayed = relay
          ? relay.relay({ ...message, retain: sharedStore ? false : message.retain, id: { broker: packet.brokerId!, counter: packet.brokerCounter! } })
          : Promise.resolve();
        relayed.catch(() => undefined);
        return { packet, queuedFor, relayed };
      }).delivered;
    },

    deliverRelayed({ id, ...message }) {
      if (sharedStore) {
        // Queued and kept retained by the node that accepted it; delivered here under its identity, so a persistent
        // session's PUBACK clears the one entry that node queued.
        const stamped = id ? { brokerId: id.broker, brokerCounter: id.counter } : stamp(message);
        return deliverHere({ cmd: 'publish', ...message, dup: false, ...stamped }).done;
      }
      // Each node keeps its own sessions: the message is taken in here as if accepted, without going back out. The
      // backbone hears it is done once it is kept here (queued for persistent sessions), not once it is delivered: a
      // delivery may wait behind this node's own messages, which wait for the backbone's acknowledgements, which the
      // backbone connection reads only after this (mqtt.js reads its messages one at a time): waiting would be a
      // deadlock until the acknowledgement timeout. The delivery still follows, in order.
      const { kept, delivered } = inOrder(async () => {
        const packet = stamp(message);
        return { packet, queuedFor: await keep(packet, false), relayed: Promise.resolve() };
      });
      delivered.catch(() => undefined);
      return kept;
    },
  };
}

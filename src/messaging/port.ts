import { MessageProperties } from './properties';

/**
 * How a message is published: its QoS (0 when absent), whether it is kept as the topic's retained message, and its
 * MQTT 5 properties (properties.ts), which reach MQTT 5 subscribers; others get topic and payload only.
 */
export interface PublishOptions {
  qos?: 0 | 1 | 2;
  retain?: boolean;
  properties?: MessageProperties;
}

/** Carries messages to device connections, wherever they are. Topics are internal (see topics.ts). */
export interface MessageBus {
  publish(internalTopic: string, payload: Buffer, options?: PublishOptions): Promise<void>;
}

/** Watches messages on internal topics as they pass (the web console's live view); the bus is what carries them. */
export interface MessageWatch {
  /**
   * Calls `onMessage` for every message on `internalFilter` (MQTT wildcards allowed) from the moment the returned
   * promise resolves, and `onEnd` once if the bus closes. The resolved function stops watching; it is idempotent.
   */
  watch(
    internalFilter: string,
    onMessage: (internalTopic: string, payload: Buffer) => void,
    onEnd: () => void,
  ): Promise<() => Promise<void>>;
}

/** A message accepted on this node, as the MQTT backbone carries it to the others. `topic` is internal (topics.ts). */
export interface RelayedMessage {
  topic: string;
  payload: Buffer;
  /** The QoS it reaches devices with, as its publisher asked. */
  qos: 0 | 1 | 2;
  retain: boolean;
  /** Its MQTT 5 properties (properties.ts), when it has any. */
  properties?: MessageProperties;
  /** Its identity where it was accepted (broker id and counter): the key of its entries in shared session queues. */
  id?: { broker: string; counter: number };
}

/** Carries what devices publish on this node to the other nodes of a cluster (the MQTT backbone, issue 4 §2). */
export interface MessageRelay {
  /**
   * QoS 0: sent when the backbone is up, else dropped, as "at most once" allows [MQTT-4.3.1]; resolves at once.
   * QoS 1 and 2: resolves once the backbone has acknowledged it; rejects with AppError BACKEND_UNAVAILABLE when the
   * backbone is down or does not answer in time, and then this node must not deliver it either.
   */
  relay(message: RelayedMessage): Promise<void>;
}

/** An MQTT 5 shared subscription of a group (mqtt/v5/shared-subscriptions.ts): its name and its internal filter. */
export interface ShareRef {
  name: string;
  /** `$openpie/g/{project}/{group}/@msg/{filter}` (topics.ts). */
  filter: string;
}

/**
 * Spreads the messages of MQTT 5 shared subscriptions over the nodes of a cluster (the MQTT backbone, issue 17): each
 * message any node accepts goes to one node that has members of a share it matches, and that node gives it to one of
 * them (MQTT 5.0 §4.8.2).
 */
export interface ShareDistribution {
  /**
   * This node has members of `share` from now on: its part of the share's messages comes through `deliver`, which
   * settles once a member has it (or it was handed on). Resolves once the other nodes send the share's messages here
   * too (at once while the backbone is down: then once it is back).
   */
  join(share: ShareRef, deliver: (message: RelayedMessage) => Promise<void>): Promise<void>;
  /** This node has no member of `share` left: its messages go to the other nodes' members. Idempotent. */
  leave(share: ShareRef): void;
  /** A message `deliver` got that no member here can take: to a member of `share` on another node, if there is one. */
  handOn(share: ShareRef, message: RelayedMessage): void;
}

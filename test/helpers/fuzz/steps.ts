import { IConnectPacket } from 'mqtt-packet';
import { Mutation, PacketSpec, Version } from './packets';

/**
 * A seeded, bounded MQTT protocol fuzzer (issue 17 item 5): a PRNG, generators of whole packet sequences (one
 * device's connections' worth of packets) for MQTT 3.1.1 and 5, byte mutators, and a raw TCP driver that plays a
 * sequence against a broker and counts what the broker answered to malformed shadow requests.
 *
 * This file holds what a sequence is made of. A sequence is plain data (steps of mqtt-packet packets plus
 * mutations), a pure function of (run seed, index): it can be printed, replayed from its seed alone, and shrunk step
 * by step.
 */

export type Slot = 0 | 1;

/** What is wrong with a shadow request the fuzzer expects exactly one error reply to (docs/mqtt.md "Shadow over MQTT"). */
export interface ShadowRequest {
  topic: '@shadow/data/get' | '@shadow/data/update' | '@shadow/batch/update';
  payload: Buffer;
  qos: 0 | 1 | 2;
  /** MQTT 5: a Response Topic, valid (`@private/...`) or not (then the error is INVALID_TOPIC). */
  responseTopic?: string;
  /** MQTT 5: sent by Topic Alias (the first request on a topic sets it). */
  alias?: number;
  what: string;
}

export interface ConnectStep {
  do: 'connect';
  slot: Slot;
  version: Version;
  /** MQTT 3.1.1 Clean Session, MQTT 5 Clean Start. */
  clean: boolean;
  keepalive: number;
  credentials: 'device' | 'wrong-token' | 'no-username';
  properties?: IConnectPacket['properties'];
  will?: IConnectPacket['will'];
  mutate?: Mutation;
  /** Packets written in the same chunk as the CONNECT: parsed before the broker has authenticated the client. */
  pipelined?: PacketSpec[];
  /** Waits for CONNACK (or the close) before the next step. */
  wait: boolean;
  /** Acknowledges what the broker sends (PUBACK, PUBREC, PUBCOMP) and answers its PUBREC with PUBREL. */
  autoAck: boolean;
}

export type Step =
  | ConnectStep
  /** Packets written in one go, so the broker parses them from one chunk and handles them concurrently. */
  | { do: 'send'; slot: Slot; packets: PacketSpec[] }
  | { do: 'pause'; ms: number }
  /** Closes the socket without DISCONNECT. */
  | { do: 'drop'; slot: Slot }
  /**
   * A counted shadow phase: subscribe to `@private/#`, a marker batch, the malformed requests mixed with harmless
   * packets, a second marker; every request must have got exactly one error reply by the second marker's reply.
   */
  | { do: 'shadow'; slot: Slot; requests: ShadowRequest[]; noise: PacketSpec[] };

export interface Sequence {
  index: number;
  seed: number;
  profile: 'qos2-session' | 'shadow' | 'chaos';
  steps: Step[];
}

import type { Client } from 'aedes';
import type { Writable } from 'node:stream';
import type { WirePacket } from '../aedes2-patches';
import { MQTT_LIMITS } from './limits';
import { createOutboundTopicAliases, OutboundTopicAliases } from './topic-aliases';

/**
 * What the broker keeps about one MQTT connection beyond aedes' own state, from its CONNECT on. The tables are made
 * when first needed: most connections (MQTT 3.1.1, no QoS 2 publishes) never need one (issue 26 §4, memory per
 * connection).
 */
export interface Connection {
  readonly version: number;
  /** Clean Start (MQTT 5) or CleanSession (3.1.1): the session begins empty [MQTT-3.1.2-4]. */
  readonly cleanStart: boolean;
  /** False when the client asked for no Reason Strings and User Properties on acknowledgements [MQTT-3.1.2-29]. */
  readonly problemInformation: boolean;
  /** The client's publishes not yet completed by PUBACK or PUBCOMP, by packet id, with their QoS. */
  inbound?: Map<number, 1 | 2>;
  /** The broker's QoS 1/2 publishes to the client not yet acknowledged (MQTT 5 §4.9 flow control). */
  outbound?: Set<number>;
  /** QoS 1/2 publishes held back while `outbound` is at the client's Receive Maximum, oldest first. */
  waiting?: { packet: WirePacket; stream: Writable; opts: object | undefined }[];
  /** The client has made a subscription with an identifier on this connection (outbound.ts, [MQTT-3.3.4-4]). */
  identified: boolean;
  /** SUBSCRIBE packets waiting for their SUBACK, by packet id (suback.ts). */
  subscribes?: Map<number, { messageId?: number; subscriptions: object[] }>;
  /** The filters, as sent, of SUBSCRIBE packets that name a filter twice, by packet id (suback.ts repeatedFilters). */
  repeated?: Map<number, readonly { topic: string; qos: number }[]>;
  /** Aliases for the topics sent to the client, when it accepts any (MQTT 5 §3.3.2.3.4). */
  readonly aliases?: OutboundTopicAliases;
}

interface ConnectPacket {
  protocolVersion?: number;
  clean?: boolean;
  properties?: { topicAliasMaximum?: number; requestProblemInformation?: boolean };
}

export function connectionOf(packet: ConnectPacket): Connection {
  const version = packet.protocolVersion ?? 4;
  const clientAliases = version === 5 ? (packet.properties?.topicAliasMaximum ?? 0) : 0;
  const aliases = Math.min(clientAliases, MQTT_LIMITS.outboundTopicAliases);
  return {
    version,
    // As aedes reads it (lib/handlers/connect.js fetchSubs).
    cleanStart: packet.clean === true,
    problemInformation: packet.properties?.requestProblemInformation !== false,
    identified: false,
    aliases: aliases > 0 ? createOutboundTopicAliases(aliases) : undefined,
  };
}

/** The connections of one broker, by aedes client. */
export type Connections = WeakMap<Client, Connection>;

import type { WirePacket } from '../aedes2-patches';

/**
 * Topic aliases the broker sets on the PUBLISH packets it sends to one MQTT 5 client (MQTT 5.0 §3.3.2.3.4; aedes
 * 2.0.0-beta.1 sets none, moscajs/aedes#840). The first message on a topic carries the topic and a new alias; later
 * ones carry the alias and an empty topic. Aliases are numbered 1..`maximum` and never exceed the client's Topic Alias
 * Maximum [MQTT-3.1.2-26] [MQTT-3.3.2-11]; a client that sets none gets none [MQTT-3.1.2-27]. Once all are taken, the
 * least recently used one is given to the next new topic, sent with its topic again, which replaces the mapping on the
 * client's side (§3.3.2.3.4). Mappings live as long as the connection [MQTT-3.3.2-7].
 *
 * Call `apply` in the order packets go on the wire: a mapping must reach the client before any packet that uses it.
 */
export interface OutboundTopicAliases {
  apply(packet: WirePacket & { topic: string; properties?: object }): WirePacket;
}

export function createOutboundTopicAliases(maximum: number): OutboundTopicAliases {
  /** Topic -> alias, least recently used first. */
  const byTopic = new Map<string, number>();
  return {
    apply(packet) {
      const known = byTopic.get(packet.topic);
      let alias = known;
      if (alias !== undefined) byTopic.delete(packet.topic);
      else if (byTopic.size < maximum) alias = byTopic.size + 1;
      else {
        const [oldest, reused] = byTopic.entries().next().value as [string, number];
        byTopic.delete(oldest);
        alias = reused;
      }
      byTopic.set(packet.topic, alias);
      const properties = { ...packet.properties, topicAlias: alias };
      return known !== undefined ? { ...packet, topic: '', properties } : { ...packet, properties };
    },
  };
}

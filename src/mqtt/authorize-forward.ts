import type { Aedes, AedesPublishPacket, Client } from 'aedes';
import { applicationTopic, externalTopic, filterMatches, isDeviceFacing, isGroupMessage, scopePrefixes } from '../messaging/topics';
import { subscriptionsOf } from './aedes-patches';
import { ApplicationConnection } from './flow-channel/application-connection';
import { HookContext } from './hook-context';

/**
 * Delivery: an internal topic goes out as the topic the device knows, or not at all when it is outside its scope,
 * and never above the QoS its subscriptions were granted. aedes asks once per subscriber, the subscribers of a message
 * one after the other, and copies what it is given into a packet of its own: so the devices of one group share the
 * rewritten packet of a group message, made for the first of them (issue 12: no allocation per delivery).
 */
export function authorizeForwardHook({ scopes, admission, apps }: HookContext): Aedes['authorizeForward'] {
  let last: { from: AedesPublishPacket; groupPrefix: string; to: AedesPublishPacket } | undefined;
  return (client, packet) => {
    const scope = scopes.get(client);
    if (!scope) {
      const conn = apps.get(client);
      return conn ? toApplication(client, conn, packet, admission) : null;
    }
    // Queued messages of a persistent session come back already external (aedes-patches.ts).
    if (isDeviceFacing(packet.topic)) return packet;
    const { group } = scopePrefixes(scope);
    let forwarded: AedesPublishPacket | null;
    if (last !== undefined && last.from === packet && last.groupPrefix === group) {
      forwarded = last.to;
    } else {
      const topic = externalTopic(scope, packet.topic);
      forwarded = topic === undefined ? null : { ...packet, topic };
      // Only a group message reads the same for another device: a private one has one recipient.
      if (forwarded && packet.topic.startsWith(group)) last = { from: packet, groupPrefix: group, to: forwarded };
    }
    if (!forwarded) return null;
    admission.delivered(scope, forwarded.topic, packet.payload.length);
    return packet.qos === 2 && grantedQos(client, packet.topic) === 1 ? { ...forwarded, qos: 1 } : forwarded;
  };
}

/**
 * Delivery to an application (flow-channel/): a watched device's notice, its group's message or the application's own
 * reply, under the topic applications know (messaging/topics.ts applicationTopic); group messages count for the
 * key's project as deliveries do for a device's.
 */
function toApplication(client: Client, conn: ApplicationConnection, packet: AedesPublishPacket, admission: HookContext['admission']): AedesPublishPacket | null {
  const topic = applicationTopic(conn.clientId, packet.topic);
  if (topic === undefined) return null;
  if (isGroupMessage(topic)) admission.delivered(conn.app, topic, packet.payload.length);
  return { ...packet, topic, qos: packet.qos === 2 && grantedQos(client, packet.topic) === 1 ? 1 : packet.qos };
}

/**
 * The highest QoS granted to the client's subscriptions that match `internalTopic` [MQTT-3.3.5-1]: a QoS 2 message
 * reaches a QoS 1 subscription at QoS 1 [MQTT-3.8.4-6]. aedes downgrades by looking the subscription up under the
 * delivered topic, which is external here and a wildcard filter never equals, so the rule is applied here.
 */
function grantedQos(client: Client, internalTopic: string): 1 | 2 {
  let granted = 0;
  for (const [filter, sub] of Object.entries(subscriptionsOf(client))) {
    if (sub.qos > granted && filterMatches(filter, internalTopic)) granted = sub.qos;
    if (granted === 2) break;
  }
  // No match (a message aedes routed otherwise) keeps the QoS it came with.
  return granted === 1 ? 1 : 2;
}

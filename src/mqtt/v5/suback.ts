import type { WirePacket } from '../aedes2-patches';
import { Connection } from './connection';

/**
 * Why authorizeSubscribe refused a subscription, for the MQTT 5 SUBACK. aedes answers every refusal with 0x87 and
 * no Reason String (lib/handlers/subscribe.js); the hook records here the code and reason it means, and the SUBACK is
 * completed as it is written (`completeSuback`). Keyed by the subscription object aedes hands the hook, which is the
 * one in the SUBSCRIBE packet.
 */
const refusals = new WeakMap<object, { reasonCode: number; why: string }>();

/** The first refusal recorded for a subscription is the one the client hears. */
export function refuseSubscription(sub: object, reasonCode: number, why: string): void {
  if (!refusals.has(sub)) refusals.set(sub, { reasonCode, why });
}

interface SubscribePacket {
  messageId?: number;
  subscriptions: object[];
}

/** The refusal recorded for a subscription, if any. */
export const refusalOf = (sub: object) => refusals.get(sub);

/** Remembers a SUBSCRIBE until its SUBACK goes out (inbound.ts). */
export function subscribed(conn: Connection, packet: WirePacket): void {
  const { messageId } = packet as unknown as SubscribePacket;
  if (messageId !== undefined) (conn.subscribes ??= new Map()).set(messageId, packet as unknown as SubscribePacket);
  if ((packet.properties as { subscriptionIdentifier?: number } | undefined)?.subscriptionIdentifier !== undefined) conn.identified = true;
}

/**
 * The SUBACK with each refusal's own reason code [MQTT-3.9.3-2] (0x97 when the messages quota is spent, 0x87 outside
 * the device's namespace) and the reasons as Reason String, unless the client asked for none [MQTT-3.1.2-29]; in the
 * order of the SUBSCRIBE's filters [MQTT-3.9.3-1], which aedes keeps (`packet.subscriptions`, deduplicated in place).
 */
export function completeSuback(conn: Connection, suback: WirePacket): WirePacket {
  const messageId = suback.messageId as number;
  const subscribe = conn.subscribes?.get(messageId);
  conn.subscribes?.delete(messageId);
  const granted = suback.granted as number[] | undefined;
  if (!subscribe || !granted) return suback;
  const reasons = new Set<string>();
  const codes = granted.map((code, i) => {
    const refusal = code >= 0x80 ? refusals.get(subscribe.subscriptions[i]) : undefined;
    if (!refusal) return code;
    reasons.add(refusal.why);
    return refusal.reasonCode;
  });
  if (reasons.size === 0) return suback;
  const reasonString = [...reasons].join('; ');
  return { ...suback, granted: codes, ...(conn.problemInformation && { properties: { reasonString } }) };
}

interface SentSubscription {
  topic: string;
  qos: number;
}

/**
 * Remembers the filters of a SUBSCRIBE that names one more than once, as sent, until its SUBACK goes out
 * (expandRepeated): aedes merges them (lib/handlers/subscribe.js `_dedupe`) and the hooks rewrite the topics of the
 * subscriptions it keeps.
 */
export function repeatedFilters(conn: Connection, packet: WirePacket): void {
  const { messageId, subscriptions } = packet as unknown as { messageId?: number; subscriptions: SentSubscription[] };
  if (messageId === undefined || subscriptions.length < 2) return;
  if (new Set(subscriptions.map((sub) => sub.topic)).size === subscriptions.length) return;
  (conn.repeated ??= new Map()).set(messageId, subscriptions.map(({ topic, qos }) => ({ topic, qos })));
}

/**
 * One return code per filter of the SUBSCRIBE, in its order [MQTT-3.8.4-5] [MQTT-3.9.3-1]. aedes merges a filter
 * named twice into one subscription, the last one, as a sequence of SUBSCRIBEs would leave it [MQTT-3.8.4-4], and
 * answers it once, at its first place. Each occurrence gets that subscription's refusal, or the QoS it asked for (at
 * most the QoS granted when the last one got less than it asked for).
 */
export function expandRepeated(conn: Connection, suback: WirePacket): WirePacket {
  const messageId = suback.messageId as number;
  const sent = conn.repeated?.get(messageId);
  if (!sent) return suback;
  conn.repeated!.delete(messageId);
  const granted = suback.granted as number[] | undefined;
  const merged = [...new Set(sent.map((sub) => sub.topic))];
  if (!granted || merged.length !== granted.length) return suback;
  const lastOf = new Map(sent.map((sub) => [sub.topic, sub]));
  const codes = sent.map((sub) => {
    const code = granted[merged.indexOf(sub.topic)];
    if (code >= 0x80) return code;
    return code >= lastOf.get(sub.topic)!.qos ? sub.qos : Math.min(sub.qos, code);
  });
  return { ...suback, granted: codes };
}

import type { PublishPacket } from 'aedes';

/**
 * Where a publish the broker's hooks have dealt with ends: no subscription can match it, since every filter is
 * rewritten into a scope. aedes still acknowledges it as its QoS asks; its publish of it then stops at once
 * (aedes-patches.ts endServedPublishes).
 */
export const SERVED_TOPIC = '$openpie/served';

/** Marks a publish as served here: it is acknowledged, then goes nowhere. */
export function markServed(packet: PublishPacket): void {
  packet.topic = SERVED_TOPIC;
  packet.retain = false;
}

import { deserialize, serialize } from 'node:v8';
import { SessionPacket } from './port';

/**
 * Packets and subscriptions are stored in V8's structured-clone format (node:v8 `serialize`): Buffers, strings,
 * `undefined` fields and MQTT 5 properties (correlation data, user properties) come back as they went in, which JSON
 * cannot do. Node reads the format of older versions, so an upgrade keeps what is stored.
 */
export const encodeValue = (value: unknown): Buffer => serialize(value);

export const decodeValue = <T>(bytes: Buffer): T => deserialize(bytes) as T;

/** The packet's own fields without functions (aedes hangs write callbacks on the packets it hands over). */
export function plainPacket(packet: SessionPacket): SessionPacket {
  const plain: SessionPacket = {};
  for (const [field, value] of Object.entries(packet)) {
    if (typeof value !== 'function') plain[field] = value;
  }
  return plain;
}

/**
 * A PUBLISH as it waits in a queue: the fields aedes-packet's `Packet` copies (what aedes-persistence's reference
 * stores), with no packet identifier yet; one is given when it is sent [MQTT-2.3.1-1].
 */
export function queuedPacket(packet: SessionPacket): SessionPacket {
  const queued: Record<string, unknown> = {};
  for (const field of ['clientId', 'nl', 'properties', 'messageExpiry']) {
    if (Object.hasOwn(packet, field)) queued[field] = packet[field];
  }
  Object.assign(queued, {
    cmd: packet.cmd || 'publish',
    brokerId: packet.brokerId,
    brokerCounter: packet.brokerCounter || 0,
    topic: packet.topic,
    payload: packet.payload || Buffer.alloc(0),
    qos: packet.qos || 0,
    retain: packet.retain || false,
    dup: packet.dup || false,
  });
  if ((queued.qos as number) > 0 || queued.cmd !== 'publish') queued.messageId = undefined;
  return queued as SessionPacket;
}

/** The identity of a message across nodes and restarts: the broker that made it and its counter there. */
export const messageKey = (packet: SessionPacket): string | undefined =>
  packet.brokerId === undefined || packet.brokerCounter === undefined ? undefined : `${packet.brokerId}:${packet.brokerCounter}`;

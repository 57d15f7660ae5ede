import { IPublishPacket, ISubscription, Packet, UserProperties } from 'mqtt-packet';
import { Mutation, PacketSpec, publish, Version } from './packets';
import { Rng } from './rng';

/** Generators of short runs of packets, well-formed or not, that the sequence kinds put together. */

export const CHAOS_IDS = [1, 2, 3, 4, 5];
export const REQUEST_TOPICS = ['@shadow/data/get', '@shadow/data/update', '@shadow/batch/update'] as const;

/** Filters a subscription may carry: granted, refused (0x80, 0x87, 0x8F) or malformed [MQTT-4.7.1], [MQTT-4.7.3-1]. */
export const ODD_FILTERS = [
  '@msg/fz/#', '@msg/+/fz', '@msg/#', '@private/#', '@private/+', '@shadow/data/updated', // granted
  '#', '+', '+/+', '$SYS/#', '@shadow/data/get', '@shadow/#', 'elsewhere', '@msg', '@msg/', // outside the namespace
  '@msg/fz/#/x', '@msg/a+', '@msg/#x', '@msg/+x/y', // wildcard rules broken
  '$share/g/@msg/fz', '$share//@msg/fz', '$share/g', '$share/g/#', '$share/a+/@msg/x', // shared subscriptions
  '__proto__', 'constructor', 'toString', 'hasOwnProperty', '@msg/__proto__', '', '/', '//', '@msg/fz/\u0000', '@msg/日本/ü', '@msg/fz/' + 'z'.repeat(400),
];

const HARMLESS_FILTERS = ['@msg/fz/#', '@msg/+/fz', '@private/fz', 'elsewhere/x', '@msg/a/#/b', '@shadow/#'];

export const userProperties = (rng: Rng): UserProperties => {
  const out: UserProperties = {};
  for (let i = rng.int(1, 3); i > 0; i--) {
    const key = rng.pick(['k', 'trace', '', 'ü', '__proto__', 'x'.repeat(rng.int(1, 40))]);
    out[key] = rng.chance(0.3) ? [rng.pick(['a', '']), rng.pick(['b', 'ü'])] : rng.pick(['v', '', 'ü日', 'y'.repeat(rng.int(0, 200))]);
  }
  return out;
};

/** v5 acknowledgement extras: a reason code (success or not) and sometimes properties. */
function ackExtras(rng: Rng, version: Version) {
  if (version !== 5 || rng.chance(0.6)) return {};
  return {
    reasonCode: rng.pick([0, 0x10, 0x80, 0x83, 0x87, 0x92]),
    ...(rng.chance(0.3) ? { properties: { reasonString: rng.pick(['fz', '']), userProperties: userProperties(rng) } } : {}),
  };
}

/** A random set of MQTT 5 PUBLISH properties, some of them protocol errors (Topic Alias 0 or above 64, a client's Subscription Identifier). */
export function publishProperties(rng: Rng): IPublishPacket['properties'] {
  const p: NonNullable<IPublishPacket['properties']> = {};
  if (rng.chance(0.3)) p.payloadFormatIndicator = rng.chance(0.5);
  if (rng.chance(0.3)) p.messageExpiryInterval = rng.pick([0, 1, 60, 0xffffffff]);
  if (rng.chance(0.2)) p.topicAlias = rng.pick([1, 2, 64, 0, 65, 65535]);
  if (rng.chance(0.3)) p.responseTopic = rng.pick(['@private/fz/r', '@msg/fz/r', '@msg/fz/#', '', '@private/+']);
  if (rng.chance(0.3)) p.correlationData = rng.bytes(rng.int(0, 16));
  if (rng.chance(0.3)) p.userProperties = userProperties(rng);
  if (rng.chance(0.05)) p.subscriptionIdentifier = rng.int(1, 1000);
  if (rng.chance(0.2)) p.contentType = rng.pick(['application/json', '', 'ü']);
  return p;
}

/** QoS 2 traffic on a few packet ids: PUBLISH (some DUP), PUBREL (often repeated), PUBREC, PUBCOMP, PUBACK, in any order [MQTT-4.3.3]. */
export function qos2Packets(rng: Rng, version: Version): PacketSpec[] {
  const ids = rng.shuffled(CHAOS_IDS).slice(0, rng.int(1, 3));
  const topic = rng.chance(0.85) ? '@msg/fz/q2' : rng.pick(REQUEST_TOPICS);
  const out: PacketSpec[] = [];
  const structured = rng.chance(0.6);
  const count = structured ? ids.length : rng.int(2, 10);
  for (let i = 0; i < count; i++) {
    const id = structured ? ids[i] : rng.pick(ids);
    const kinds = structured
      ? [...(rng.chance(0.8) ? ['publish'] : []), ...Array.from({ length: rng.int(0, 3) }, () => 'pubrel'), ...(rng.chance(0.2) ? [rng.pick(['pubrec', 'pubcomp', 'puback'])] : [])]
      : [rng.pick(['publish', 'publish', 'pubrel', 'pubrel', 'pubrec', 'pubcomp', 'puback'])];
    for (const kind of kinds) {
      if (kind === 'publish') {
        out.push({ packet: publish(topic, topic === '@msg/fz/q2' ? `q2-${id}` : '{"data":{"q2":1}}', 2, id, { dup: rng.chance(0.3) }) });
      } else {
        out.push({ packet: { cmd: kind as 'pubrel' | 'pubrec' | 'pubcomp' | 'puback', messageId: id, ...ackExtras(rng, version) } });
      }
    }
  }
  return structured && rng.chance(0.3) ? rng.shuffled(out) : out;
}

export function qos1Packets(rng: Rng, version: Version): PacketSpec[] {
  return Array.from({ length: rng.int(1, 6) }, (): PacketSpec => {
    const id = rng.pick(CHAOS_IDS);
    return rng.chance(0.6)
      ? { packet: publish('@msg/fz/q1', `q1-${id}`, 1, id, { dup: rng.chance(0.3), retain: rng.chance(0.1) }) }
      : { packet: { cmd: rng.pick(['puback', 'pubrec', 'pubcomp'] as const), messageId: rng.chance(0.8) ? id : rng.int(1, 65535), ...ackExtras(rng, version) } };
  });
}

function subscription(rng: Rng, version: Version, topic: string): ISubscription {
  const qos = rng.pick([0, 1, 2] as const);
  return version === 5 && rng.chance(0.5) ? { topic, qos, nl: rng.chance(0.5), rap: rng.chance(0.5), rh: rng.int(0, 2) } : { topic, qos };
}

export function subscribePackets(rng: Rng, version: Version): PacketSpec[] {
  const messageId = rng.int(1, 65535);
  const subscriptions = Array.from({ length: rng.int(1, 4) }, () => subscription(rng, version, rng.pick(ODD_FILTERS)));
  const properties = version === 5 && rng.chance(0.4)
    ? { ...(rng.chance(0.7) ? { subscriptionIdentifier: rng.pick([1, 7, 268435455, 0]) } : {}), ...(rng.chance(0.4) ? { userProperties: userProperties(rng) } : {}) }
    : undefined;
  const out: PacketSpec[] = [{ packet: { cmd: 'subscribe', messageId, subscriptions, ...(properties ? { properties } : {}) } }];
  if (rng.chance(0.4)) out.push({ packet: { cmd: 'unsubscribe', messageId: rng.chance(0.5) ? messageId : rng.int(1, 65535), unsubscriptions: subscriptions.map((s) => s.topic) } });
  return out;
}

/** A PUBLISH or SUBSCRIBE whose topic holds bytes that are not UTF-8, or U+0000 [MQTT-1.5.3-1], [MQTT-1.5.4-2]. */
export function invalidUtf8Packet(rng: Rng, version: Version): PacketSpec {
  const bad = rng.pick(['ff', 'c0af', 'eda080', 'f8888080', 'c3', '00', 'efbfbf', 'f4908080']);
  const filler = 'x'.repeat(bad.length / 2);
  const at = rng.int(0, 3);
  if (rng.chance(0.7)) {
    const topic = '@msg/fz/' + filler.padStart(at + filler.length, 'y');
    // Variable header: topic length (2), then the topic.
    return { packet: publish(topic, 'utf8', rng.pick([0, 1] as const), 9), mutate: { kind: 'overwrite', at: 2 + 8 + at, hex: bad } };
  }
  const topic = '@msg/fz/' + filler;
  // Variable header: packet id (2), MQTT 5 properties length (1); then the first filter's length (2) and the filter.
  return { packet: { cmd: 'subscribe', messageId: 9, subscriptions: [{ topic, qos: 0 }] }, mutate: { kind: 'overwrite', at: (version === 5 ? 3 : 2) + 2 + 8, hex: bad } };
}

/** Any well-formed packet, then one mutation of its bytes: wrong flags, a wrong length, a cut, a flipped bit [MQTT-4.8.0-1]. */
export function malformedPacket(rng: Rng, version: Version): PacketSpec {
  const bases: Packet[] = [
    publish('@msg/fz/m', 'mutant', rng.pick([0, 1, 2] as const), rng.pick(CHAOS_IDS)),
    { cmd: 'pubrel', messageId: rng.pick(CHAOS_IDS) },
    { cmd: 'puback', messageId: rng.pick(CHAOS_IDS) },
    { cmd: 'subscribe', messageId: 3, subscriptions: [{ topic: '@msg/fz/#', qos: 1 }] },
    { cmd: 'unsubscribe', messageId: 4, unsubscriptions: ['@msg/fz/#'] },
    { cmd: 'pingreq' },
    { cmd: 'disconnect' },
    // A second CONNECT on a connection is a protocol violation [MQTT-3.1.0-2].
    { cmd: 'connect', protocolVersion: version, clientId: 'fz', clean: true, keepalive: 10 },
  ];
  const packet = rng.pick(bases);
  const mutation: Mutation = rng.pick<() => Mutation>([
    () => ({ kind: 'truncate', keep: rng.int(1, 12) }),
    () => ({ kind: 'flip', at: rng.int(0, 40), xor: rng.int(1, 255) }),
    () => ({ kind: 'flags', nibble: rng.int(0, 15) }),
    () => ({ kind: 'length', bytes: rng.pick([[0x00], [0x7f], [0xff, 0x7f], [0xff, 0xff, 0xff, 0x7f], [0xff, 0xff, 0xff, 0xff, 0x7f], [0x80, 0x00]]) }),
    () => ({ kind: 'append', hex: rng.bytes(rng.int(1, 8)).toString('hex') }),
  ])();
  return { packet, mutate: mutation };
}

/**
 * Fields at and past their limits: a 65535-byte topic, a payload over the 288 KiB Maximum Packet Size, a user property
 * of 65,535 bytes (the most a UTF-8 Encoded String holds, MQTT 5 §1.5.4).
 */
export function oversizedPacket(rng: Rng, version: Version): PacketSpec {
  const which = rng.int(0, version === 5 ? 3 : 2);
  if (which === 0) return { packet: publish('@msg/' + 'o'.repeat(65530), 'long topic', rng.pick([0, 1] as const), 7) };
  if (which === 1) return { packet: publish('@msg/fz/big', Buffer.alloc(rng.pick([270, 300]) * 1024, 0x61), rng.pick([0, 1, 2] as const), 7) };
  if (which === 2) return { packet: { cmd: 'subscribe', messageId: 7, subscriptions: [{ topic: '@msg/' + 's'.repeat(65000), qos: 0 }] } };
  return { packet: publish('@msg/fz/props', 'x', 1, 7, { properties: { userProperties: { big: 'u'.repeat(rng.pick([1000, 65535])) } } }) };
}

/** Packets that leave a connection up (docs/mqtt.md): pings, publishes on `@msg`, refused subscriptions, stray acknowledgements. */
export function harmlessPackets(rng: Rng): PacketSpec[] {
  return Array.from({ length: rng.int(0, 4) }, (): PacketSpec => {
    const id = 30000 + rng.int(0, 999);
    switch (rng.int(0, 5)) {
      case 0:
        return { packet: { cmd: 'pingreq' } };
      case 1:
        return { packet: publish('@msg/fz/noise', 'n', rng.pick([0, 1, 2] as const), id) };
      case 2:
        return { packet: { cmd: 'subscribe', messageId: id, subscriptions: [{ topic: rng.pick(HARMLESS_FILTERS), qos: rng.pick([0, 1, 2] as const) }] } };
      case 3:
        return { packet: { cmd: 'unsubscribe', messageId: id, unsubscriptions: ['@msg/fz/none'] } };
      case 4:
        return { packet: { cmd: 'pubrel', messageId: id } };
      default:
        return { packet: { cmd: 'puback', messageId: id } };
    }
  });
}

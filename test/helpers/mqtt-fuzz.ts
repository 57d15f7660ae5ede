import { generate, IConnectPacket, IPublishPacket, ISubscription, Packet, parser, UserProperties } from 'mqtt-packet';
import { connect, Socket } from 'node:net';
import { BATCH_RESPONSE, UPDATE_RESPONSE } from './mqtt-shadow';

/**
 * A seeded, bounded MQTT protocol fuzzer (issue 17 item 5): a PRNG, generators of whole packet sequences (one
 * device's connections' worth of packets) for MQTT 3.1.1 and 5, byte mutators, and a raw TCP driver that plays a
 * sequence against a broker and counts what the broker answered to malformed shadow requests.
 *
 * A sequence is plain data (steps of mqtt-packet packets plus mutations), a pure function of (run seed, index): it
 * can be printed, replayed from its seed alone, and shrunk step by step.
 */

// ---------------------------------------------------------------------------------------------------------------- PRNG

export interface Rng {
  /** [0, 1) */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  bytes(n: number): Buffer;
  /** A new array, shuffled (Fisher-Yates). */
  shuffled<T>(items: readonly T[]): T[];
}

/** mulberry32 (Tommy Ettinger, public domain): 32 bits of state, good enough to pick packets, and replayable. */
export function mulberry32(seed: number): Rng {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)],
    bytes: (n) => Buffer.from(Array.from({ length: n }, () => int(0, 255))),
    shuffled(items) {
      const out = [...items];
      for (let i = out.length - 1; i > 0; i--) {
        const j = int(0, i);
        [out[i], out[j]] = [out[j], out[i]];
      }
      return out;
    },
  };
}

/** The seed of sequence `index` of a run: murmur3's finaliser over both, so neighbouring indexes look unrelated. */
export function sequenceSeed(runSeed: number, index: number): number {
  let h = (runSeed ^ Math.imul(index + 1, 0x9e3779b9)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

// ------------------------------------------------------------------------------------------------------------ packets

export type Version = 4 | 5;
export type Slot = 0 | 1;

/** A change to a packet's bytes after mqtt-packet wrote it. Offsets past the end are taken modulo the length. */
export type Mutation =
  /** Keeps the first `keep` bytes (at most all but one). */
  | { kind: 'truncate'; keep: number }
  | { kind: 'flip'; at: number; xor: number }
  /** The low nibble of the fixed header: flags that [MQTT-2.2.2-1] fixes for every packet but PUBLISH. */
  | { kind: 'flags'; nibble: number }
  /** These bytes instead of the true Remaining Length [MQTT-2.2.3]. */
  | { kind: 'length'; bytes: number[] }
  /** Overwrites bytes from `at` of the variable header (after the fixed header): invalid UTF-8 in a topic. */
  | { kind: 'overwrite'; at: number; hex: string }
  | { kind: 'append'; hex: string };

export type PacketSpec = { packet: Packet; mutate?: Mutation } | { raw: string };

function fixedHeaderLength(bytes: Buffer): number {
  let i = 1;
  while (i < bytes.length && i < 5 && (bytes[i] & 0x80) !== 0) i++;
  return Math.min(i + 1, bytes.length);
}

export function mutate(bytes: Buffer, m: Mutation): Buffer {
  const out = Buffer.from(bytes);
  switch (m.kind) {
    case 'truncate':
      return out.subarray(0, Math.max(1, Math.min(m.keep, out.length - 1)));
    case 'flip':
      out[m.at % out.length] ^= m.xor;
      return out;
    case 'flags':
      out[0] = (out[0] & 0xf0) | (m.nibble & 0x0f);
      return out;
    case 'length':
      return Buffer.concat([out.subarray(0, 1), Buffer.from(m.bytes), out.subarray(fixedHeaderLength(out))]);
    case 'overwrite': {
      const start = fixedHeaderLength(out) + m.at;
      Buffer.from(m.hex, 'hex').copy(out, Math.min(start, out.length));
      return out;
    }
    case 'append':
      return Buffer.concat([out, Buffer.from(m.hex, 'hex')]);
  }
}

/** The bytes of one spec; throws when mqtt-packet refuses the packet. */
export function encode(spec: PacketSpec, version: Version): Buffer {
  if ('raw' in spec) return Buffer.from(spec.raw, 'hex');
  const bytes = generate(spec.packet, { protocolVersion: version });
  return spec.mutate ? mutate(bytes, spec.mutate) : bytes;
}

/** A packet mqtt-packet refuses to write (a property its version lacks, a value out of range) goes as a PINGREQ. */
function encodeOrPing(spec: PacketSpec, version: Version): Buffer {
  try {
    return encode(spec, version);
  } catch {
    return Buffer.from([0xc0, 0x00]);
  }
}

// -------------------------------------------------------------------------------------------------------- sequences

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

const CHAOS_IDS = [1, 2, 3, 4, 5];
const REQUEST_TOPICS = ['@shadow/data/get', '@shadow/data/update', '@shadow/batch/update'] as const;

/** Filters a subscription may carry: granted, refused (0x80, 0x87, 0x8F) or malformed [MQTT-4.7.1], [MQTT-4.7.3-1]. */
const ODD_FILTERS = [
  '@msg/fz/#', '@msg/+/fz', '@msg/#', '@private/#', '@private/+', '@shadow/data/updated', // granted
  '#', '+', '+/+', '$SYS/#', '@shadow/data/get', '@shadow/#', 'elsewhere', '@msg', '@msg/', // outside the namespace
  '@msg/fz/#/x', '@msg/a+', '@msg/#x', '@msg/+x/y', // wildcard rules broken
  '$share/g/@msg/fz', '$share//@msg/fz', '$share/g', '$share/g/#', '$share/a+/@msg/x', // shared subscriptions
  '__proto__', 'constructor', 'toString', 'hasOwnProperty', '@msg/__proto__', '', '/', '//', '@msg/fz/\u0000', '@msg/日本/ü', '@msg/fz/' + 'z'.repeat(400),
];

const HARMLESS_FILTERS = ['@msg/fz/#', '@msg/+/fz', '@private/fz', 'elsewhere/x', '@msg/a/#/b', '@shadow/#'];

const userProperties = (rng: Rng): UserProperties => {
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
function publishProperties(rng: Rng): IPublishPacket['properties'] {
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

const publish = (topic: string, payload: Buffer | string, qos: 0 | 1 | 2, messageId?: number, extra: Partial<IPublishPacket> = {}): IPublishPacket => ({
  cmd: 'publish', topic, payload, qos, dup: false, retain: false, ...(qos > 0 ? { messageId } : {}), ...extra,
});

/** QoS 2 traffic on a few packet ids: PUBLISH (some DUP), PUBREL (often repeated), PUBREC, PUBCOMP, PUBACK, in any order [MQTT-4.3.3]. */
function qos2Packets(rng: Rng, version: Version): PacketSpec[] {
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

function qos1Packets(rng: Rng, version: Version): PacketSpec[] {
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

function subscribePackets(rng: Rng, version: Version): PacketSpec[] {
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
function invalidUtf8Packet(rng: Rng, version: Version): PacketSpec {
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
function malformedPacket(rng: Rng, version: Version): PacketSpec {
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

/** Fields at and past their limits: a 65535-byte topic, a payload over the 288 KiB Maximum Packet Size, a huge property. */
function oversizedPacket(rng: Rng, version: Version): PacketSpec {
  const which = rng.int(0, version === 5 ? 3 : 2);
  if (which === 0) return { packet: publish('@msg/' + 'o'.repeat(65530), 'long topic', rng.pick([0, 1] as const), 7) };
  if (which === 1) return { packet: publish('@msg/fz/big', Buffer.alloc(rng.pick([270, 300]) * 1024, 0x61), rng.pick([0, 1, 2] as const), 7) };
  if (which === 2) return { packet: { cmd: 'subscribe', messageId: 7, subscriptions: [{ topic: '@msg/' + 's'.repeat(65000), qos: 0 }] } };
  return { packet: publish('@msg/fz/props', 'x', 1, 7, { properties: { userProperties: { big: 'u'.repeat(rng.pick([1000, 70000])) } } }) };
}

/** Well-formed and malformed `@shadow/...` requests at any QoS, counted nowhere: load on the request queue, mixed with flows. */
function shadowSpam(rng: Rng, version: Version): PacketSpec[] {
  return Array.from({ length: rng.int(1, 5) }, (): PacketSpec => {
    const topic = rng.pick(REQUEST_TOPICS);
    const payload = rng.chance(0.5) ? malformedShadowPayload(rng, topic).payload : validShadowPayload(topic, rng.int(0, 999));
    const qos = rng.pick([0, 1, 2] as const);
    return { packet: publish(topic, payload, qos, rng.pick(CHAOS_IDS), version === 5 && rng.chance(0.5) ? { properties: publishProperties(rng) } : {}) };
  });
}

function validShadowPayload(topic: string, n: number): Buffer {
  if (topic === '@shadow/batch/update') return Buffer.from(JSON.stringify({ ackid: n, batch: [{ data: { fz: n }, ts: 0 }] }));
  return Buffer.from(topic === '@shadow/data/update' ? JSON.stringify({ data: { fz: n } }) : '');
}

const nested = (depth: number): unknown => (depth === 0 ? 1 : { n: nested(depth - 1) });
const validItem = (i: number) => ({ data: { fz: i }, ts: -i });
const text = (s: string) => Buffer.from(s);

/** A payload `@shadow/data/update` or `@shadow/batch/update` must refuse, and why (docs/device-api.md, docs/limits-and-errors.md). */
function malformedShadowPayload(rng: Rng, topic: string): { payload: Buffer; what: string } {
  const json = (v: unknown) => text(JSON.stringify(v));
  const common: [string, () => Buffer][] = [
    ['empty payload (INVALID_JSON)', () => Buffer.alloc(0)],
    ['not JSON (INVALID_JSON)', () => text(rng.pick(['{', '{"data":', 'data', '{"data":{"a":1}}x', "{'data':{}}", 'NaN', '{"data":{"a":01}}', '\u0000']))],
    ['invalid UTF-8 (INVALID_JSON)', () => Buffer.concat([text('{"data":{"a":"'), Buffer.from(rng.pick(['ff', 'c0af', 'eda080', 'c3']), 'hex'), text('"}}')])],
    ['JSON that is not an object (INVALID_BODY)', () => text(rng.pick(['[]', '5', '"x"', 'null', 'true', '[{"data":{}}]']))],
    ['a lone surrogate (INVALID_BODY)', () => text('{"data":{"a":"\\ud800"}}')],
  ];
  if (rng.chance(0.01)) return { payload: Buffer.concat([text('{"data":{"big":"'), Buffer.alloc(257 * 1024, 0x62), text('"}}')]), what: 'over 256 KiB (PAYLOAD_TOO_LARGE)' };
  const update: [string, () => Buffer][] = [
    ['no data (INVALID_BODY)', () => json(rng.pick([{}, { timestamp: 1 }, { merged: true }]))],
    ['data of a wrong type (INVALID_BODY)', () => json({ data: rng.pick([5, [1], 'x', null, true]) })],
    ['a timestamp of a wrong type (INVALID_BODY)', () => json({ data: { a: 1 }, timestamp: rng.pick(['now', 1.5, 1e300, true, null, {}]) })],
    ['a timestamp far in the future (INVALID_TIMESTAMP)', () => json({ data: { a: 1 }, timestamp: 4102444800000 })],
    ['an option of a wrong type (INVALID_BODY)', () => json({ data: { a: 1 }, [rng.pick(['merged', 'store', 'trigger'])]: rng.pick(['yes', 1, null]) })],
    ['an unknown member (INVALID_BODY)', () => json({ data: { a: 1 }, [rng.pick(['extra', 'deviceid', 'ackid', '__proto__'])]: 1 })],
    ['an empty member name (INVALID_BODY)', () => json({ data: { '': 1 } })],
    ['a member name over 256 characters (INVALID_BODY)', () => json({ data: { ['k'.repeat(257)]: 1 } })],
    ['data nested deeper than 16 levels (INVALID_BODY)', () => json({ data: nested(17) })],
  ];
  const batch: [string, () => Buffer][] = [
    ['no batch (INVALID_BODY)', () => json(rng.pick([{}, { ackid: 1 }, { merged: false }]))],
    ['a batch of a wrong type (INVALID_BODY)', () => json({ batch: rng.pick([5, {}, null, 'x']) })],
    ['an empty batch (INVALID_BODY)', () => json({ ackid: rng.int(1, 99), batch: [] })],
    ['an ackid of a wrong type (INVALID_BODY)', () => json({ ackid: rng.pick([{}, [1], true, null]), batch: [validItem(0)] })],
    ['an unknown member (INVALID_BODY)', () => json({ batch: [validItem(0)], [rng.pick(['x', 'data', 'ts'])]: 1 })],
    ['more than 100 items (BATCH_TOO_LARGE)', () => json({ ackid: rng.int(1, 99), batch: Array.from({ length: rng.int(101, 150) }, (_, i) => validItem(i)) })],
    ['a bad item (INVALID_BATCH_ITEM)', () => {
      const items: unknown[] = Array.from({ length: rng.int(1, 5) }, (_, i) => validItem(i));
      items.splice(rng.int(0, items.length), 0, rng.pick<unknown>([5, null, { data: { a: 1 } }, { data: { a: 1 }, ts: 'x' }, { data: 5, ts: 0 }, { data: { a: 1 }, ts: 0, timestamp: 0 }, { data: { a: 1 }, ts: 0, x: 1 }, { ts: 0 }]));
      return json({ ackid: rng.pick(['a', 7]), batch: items });
    }],
  ];
  const [what, make] = rng.pick([...common, ...(topic === '@shadow/batch/update' ? batch : update)]);
  return { payload: make(), what };
}

/** One request the broker must answer with exactly one error reply. */
function malformedShadowRequest(rng: Rng, version: Version): ShadowRequest {
  const qos = rng.pick([0, 0, 1, 2] as const);
  // A valid payload with a Response Topic outside `@private/` is refused as INVALID_TOPIC (MQTT 5 only).
  if (version === 5 && rng.chance(0.2)) {
    const topic = rng.pick(REQUEST_TOPICS);
    return { topic, payload: validShadowPayload(topic, rng.int(0, 999)), qos, responseTopic: rng.pick(['@msg/fz/r', '@shadow/data/updated', 'elsewhere', '@private//x', '@private/']), what: 'a Response Topic outside @private/ (INVALID_TOPIC)' };
  }
  const topic = rng.pick(['@shadow/data/update', '@shadow/batch/update'] as const);
  const { payload, what } = malformedShadowPayload(rng, topic);
  const extra = version === 5 ? { ...(rng.chance(0.3) ? { responseTopic: `@private/fz/r${rng.int(0, 9)}` } : {}), ...(rng.chance(0.2) ? { alias: rng.int(1, 3) } : {}) } : {};
  return { topic, payload, qos, what, ...extra };
}

/** Packets that leave a connection up (docs/mqtt.md): pings, publishes on `@msg`, refused subscriptions, stray acknowledgements. */
function harmlessPackets(rng: Rng): PacketSpec[] {
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

interface Current {
  slot: Slot;
  version: Version;
  persistent: boolean;
}

function connectStep(rng: Rng, slot: Slot, version: Version, persistent: boolean, opts: { chaos: boolean }): ConnectStep {
  const props: NonNullable<IConnectPacket['properties']> = {};
  if (version === 5) {
    if (persistent) props.sessionExpiryInterval = rng.pick([30, 300, 3600, 0xffffffff]);
    else if (rng.chance(0.2)) props.sessionExpiryInterval = 0;
    if (rng.chance(0.3)) props.receiveMaximum = rng.pick([1, 2, 10, 65535]);
    // A small Maximum Packet Size would make the broker drop replies as if delivered [MQTT-3.1.2-25]: chaos only.
    if (rng.chance(0.3)) props.maximumPacketSize = opts.chaos ? rng.pick([64, 512, 65536]) : rng.pick([65536, 1048576]);
    if (rng.chance(0.3)) props.topicAliasMaximum = rng.pick([0, 1, 10, 64]);
    if (rng.chance(0.2)) props.requestProblemInformation = rng.chance(0.5);
    if (rng.chance(0.1)) props.requestResponseInformation = true;
    if (rng.chance(0.2)) props.userProperties = userProperties(rng);
    if (opts.chaos && rng.chance(0.03)) props.authenticationMethod = 'SCRAM-SHA-1';
  }
  const will = rng.chance(0.15)
    ? { topic: rng.pick(['@msg/fz/will', '@private/will', '@msg/fz/#']), payload: 'gone', qos: rng.pick([0, 1, 2] as const), retain: rng.chance(0.2), ...(version === 5 && rng.chance(0.5) ? { properties: { willDelayInterval: rng.pick([0, 1, 5]) } } : {}) }
    : undefined;
  return {
    do: 'connect',
    slot,
    version,
    clean: version === 5 ? !persistent && rng.chance(0.8) : !persistent,
    keepalive: rng.pick([0, 10, 60, 65535]),
    credentials: opts.chaos && rng.chance(0.04) ? rng.pick(['wrong-token', 'no-username'] as const) : 'device',
    ...(Object.keys(props).length > 0 ? { properties: props } : {}),
    ...(will ? { will } : {}),
    ...(opts.chaos && rng.chance(0.03) ? { mutate: rng.pick<Mutation>([{ kind: 'flip', at: rng.int(8, 12), xor: rng.int(1, 255) }, { kind: 'flags', nibble: 1 }, { kind: 'truncate', keep: rng.int(2, 20) }]) } : {}),
    ...(opts.chaos && rng.chance(0.15) ? { pipelined: pipelinedPackets(rng, version) } : {}),
    wait: !opts.chaos || rng.chance(0.85),
    autoAck: !opts.chaos || rng.chance(0.8),
  };
}

/** What a client may send right behind its CONNECT: it need not wait for CONNACK (MQTT 3.1.1 §3.1.4, MQTT 5 §3.1.4). */
function pipelinedPackets(rng: Rng, version: Version): PacketSpec[] {
  return rng.pick([
    () => subscribePackets(rng, version),
    () => [{ packet: { cmd: 'unsubscribe', messageId: rng.int(1, 65535), unsubscriptions: rng.shuffled(ODD_FILTERS).slice(0, rng.int(1, 3)) } } as PacketSpec],
    () => qos2Packets(rng, version),
    () => shadowSpam(rng, version),
  ])();
}

/**
 * The steps of a counted shadow phase. MQTT 3.1.1 replies are told apart only by topic and order, so a phase needs a
 * connection whose session holds no queued replies of earlier connections: a clean one. MQTT 5 replies carry the
 * request's Correlation Data, so any session will do.
 */
function shadowStep(rng: Rng, cur: Current): Step[] {
  if (cur.version === 4 && cur.persistent) return [];
  return [{ do: 'shadow', slot: cur.slot, requests: Array.from({ length: rng.int(1, 8) }, () => malformedShadowRequest(rng, cur.version)), noise: harmlessPackets(rng) }];
}

/** Splits packets into 1-3 writes with short pauses, so some land in one chunk and some do not. */
function writes(rng: Rng, slot: Slot, packets: PacketSpec[]): Step[] {
  if (packets.length === 0) return [];
  const cuts = rng.shuffled(Array.from({ length: packets.length - 1 }, (_, i) => i + 1)).slice(0, rng.int(0, Math.min(2, packets.length - 1))).sort((a, b) => a - b);
  const out: Step[] = [];
  let from = 0;
  for (const cut of [...cuts, packets.length]) {
    out.push({ do: 'send', slot, packets: packets.slice(from, cut) });
    if (cut < packets.length) out.push({ do: 'pause', ms: rng.int(0, 25) });
    from = cut;
  }
  return out;
}

/** Leaves the current connection and comes back with the same ClientID: drop, DISCONNECT, or take-over [MQTT-3.1.4-2]. */
function reconnect(rng: Rng, cur: Current, chaos: boolean): { steps: Step[]; next: Current } {
  const version = rng.chance(0.9) ? cur.version : cur.version === 4 ? 5 : 4;
  const persistent = rng.chance(0.85) ? cur.persistent : !cur.persistent;
  const how = rng.pick(['drop', 'disconnect', 'takeover', 'takeover-no-wait'] as const);
  const steps: Step[] = [];
  let slot = cur.slot;
  if (how === 'drop') steps.push({ do: 'drop', slot });
  if (how === 'disconnect') {
    const properties = cur.version === 5 && rng.chance(0.3) ? { sessionExpiryInterval: rng.pick([0, 60]) } : undefined;
    steps.push({ do: 'send', slot, packets: [{ packet: { cmd: 'disconnect', ...(cur.version === 5 ? { reasonCode: rng.pick([0, 4]) } : {}), ...(properties ? { properties } : {}) } }] });
  }
  if (how.startsWith('takeover')) slot = slot === 0 ? 1 : 0;
  else if (rng.chance(0.5)) steps.push({ do: 'pause', ms: rng.int(0, 30) });
  const connectNow = connectStep(rng, slot, version, persistent, { chaos });
  steps.push(how === 'takeover-no-wait' ? { ...connectNow, wait: false } : connectNow);
  return { steps, next: { slot, version, persistent } };
}

/** The bug class of the brief: QoS 2 bursts with reused packet ids on a persistent session, reconnecting between bursts. */
function qos2Session(rng: Rng): Step[] {
  let cur: Current = { slot: 0, version: rng.pick([4, 5] as const), persistent: rng.chance(0.9) };
  const steps: Step[] = [connectStep(rng, 0, cur.version, cur.persistent, { chaos: false })];
  for (let round = rng.int(2, 4); round > 0; round--) {
    steps.push(...writes(rng, cur.slot, qos2Packets(rng, cur.version)));
    if (rng.chance(0.3)) steps.push({ do: 'pause', ms: rng.int(0, 40) });
    if (rng.chance(0.75)) {
      const { steps: more, next } = reconnect(rng, cur, false);
      steps.push(...more);
      cur = next;
    }
  }
  return steps;
}

function shadowSequence(rng: Rng): Step[] {
  const version = rng.pick([4, 5] as const);
  const cur: Current = { slot: 0, version, persistent: version === 5 && rng.chance(0.4) };
  const steps: Step[] = [connectStep(rng, 0, version, cur.persistent, { chaos: false })];
  if (rng.chance(0.3)) steps.push(...writes(rng, 0, harmlessPackets(rng)));
  for (let phases = rng.int(1, 2); phases > 0; phases--) steps.push(...shadowStep(rng, cur));
  if (rng.chance(0.4)) steps.push(...writes(rng, 0, [...shadowSpam(rng, version), ...qos2Packets(rng, version)]));
  return steps;
}

function chaosSequence(rng: Rng): Step[] {
  let cur: Current = { slot: 0, version: rng.pick([4, 5] as const), persistent: rng.chance(0.5) };
  const steps: Step[] = [];
  // Bytes before any CONNECT: the broker must close [MQTT-3.1.0-1].
  if (rng.chance(0.05)) steps.push({ do: 'send', slot: 0, packets: [rng.chance(0.5) ? malformedPacket(rng, cur.version) : { raw: rng.bytes(rng.int(1, 64)).toString('hex') }] });
  steps.push(connectStep(rng, 0, cur.version, cur.persistent, { chaos: true }));
  const menu: [number, () => void][] = [
    [3, () => steps.push(...writes(rng, cur.slot, qos2Packets(rng, cur.version)))],
    [2, () => steps.push(...writes(rng, cur.slot, qos1Packets(rng, cur.version)))],
    [2, () => steps.push(...writes(rng, cur.slot, subscribePackets(rng, cur.version)))],
    [2, () => steps.push({ do: 'send', slot: cur.slot, packets: [malformedPacket(rng, cur.version)] })],
    [0.4, () => steps.push({ do: 'send', slot: cur.slot, packets: [oversizedPacket(rng, cur.version)] })],
    [1, () => steps.push({ do: 'send', slot: cur.slot, packets: [invalidUtf8Packet(rng, cur.version)] })],
    [1.5, () => steps.push(...writes(rng, cur.slot, Array.from({ length: rng.int(1, 3) }, () => ({ packet: publish(rng.pick(['@msg/fz/p', '', '@msg/fz/+', '@private/x']), 'p', rng.pick([0, 1, 2] as const), rng.pick(CHAOS_IDS), cur.version === 5 ? { properties: publishProperties(rng) } : {}) }))))],
    [2, () => steps.push(...writes(rng, cur.slot, shadowSpam(rng, cur.version)))],
    [1.5, () => {
      const { steps: more, next } = reconnect(rng, cur, true);
      steps.push(...more);
      cur = next;
    }],
    [1, () => steps.push(...shadowStep(rng, cur))],
    [0.5, () => steps.push({ do: 'send', slot: cur.slot, packets: [{ packet: { cmd: 'pingreq' } }] })],
    [1, () => steps.push({ do: 'pause', ms: rng.int(0, 50) })],
  ];
  const total = menu.reduce((sum, [w]) => sum + w, 0);
  for (let n = rng.int(3, 10); n > 0; n--) {
    let roll = rng.next() * total;
    const entry = menu.find(([w]) => (roll -= w) < 0) ?? menu[menu.length - 1];
    entry[1]();
  }
  return steps;
}

/** Sequence `index` of the run with seed `runSeed`. */
export function generateSequence(runSeed: number, index: number): Sequence {
  const seed = sequenceSeed(runSeed, index);
  const rng = mulberry32(seed);
  const roll = rng.next();
  const profile = roll < 0.3 ? 'qos2-session' : roll < 0.55 ? 'shadow' : 'chaos';
  const steps = profile === 'qos2-session' ? qos2Session(rng) : profile === 'shadow' ? shadowSequence(rng) : chaosSequence(rng);
  return { index, seed, profile, steps };
}

// ------------------------------------------------------------------------------------------------------------ driver

/** One raw TCP connection to the broker, reading with mqtt-packet's parser, acknowledging what it is asked to. */
export class WireConnection {
  readonly received: Packet[] = [];
  closed = false;
  /**
   * Malformed bytes were written: the broker may be reading the next packets as the rest of a cut one, so the
   * connection no longer tells anything about shadow replies.
   */
  tainted = false;
  /** The client's Maximum Packet Size: the broker drops replies above it as if delivered [MQTT-3.1.2-25]. */
  maximumPacketSize?: number;
  /** Bytes from the broker that mqtt-packet could not read. */
  parseErrors: string[] = [];
  private readonly socket: Socket;
  private readonly waiters = new Set<() => void>();

  constructor(port: number, readonly version: Version, public autoAck: boolean) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.setNoDelay(true);
    this.socket.on('error', () => undefined);
    this.socket.once('close', () => {
      this.closed = true;
      this.wake();
    });
    const read = parser({ protocolVersion: version });
    read.on('packet', (packet: Packet) => {
      this.received.push(packet);
      this.acknowledge(packet);
      this.wake();
    });
    read.on('error', (err: Error) => this.parseErrors.push(err.message));
    this.socket.on('data', (chunk) => read.parse(chunk));
  }

  private wake() {
    for (const waiter of [...this.waiters]) waiter();
  }

  private acknowledge(packet: Packet) {
    if (!this.autoAck) return;
    const id = packet.messageId;
    if (packet.cmd === 'publish' && packet.qos === 1) this.write(generate({ cmd: 'puback', messageId: id }, { protocolVersion: this.version }));
    if (packet.cmd === 'publish' && packet.qos === 2) this.write(generate({ cmd: 'pubrec', messageId: id }, { protocolVersion: this.version }));
    if (packet.cmd === 'pubrel') this.write(generate({ cmd: 'pubcomp', messageId: id }, { protocolVersion: this.version }));
    if (packet.cmd === 'pubrec') this.write(generate({ cmd: 'pubrel', messageId: id }, { protocolVersion: this.version }));
  }

  write(bytes: Buffer): void {
    if (!this.closed && !this.socket.destroyed) this.socket.write(bytes);
  }

  /** The first packet from index `from` on that matches, or undefined once the socket closed or `ms` passed. */
  until(pred: (p: Packet) => boolean, ms: number, from = 0): Promise<{ packet: Packet; at: number } | undefined> {
    return new Promise((resolve) => {
      let scanned = from;
      const check = () => {
        for (; scanned < this.received.length; scanned++) {
          if (pred(this.received[scanned])) return done({ packet: this.received[scanned], at: scanned });
        }
        if (this.closed) done(undefined);
      };
      const timer = setTimeout(() => done(undefined), ms);
      const done = (result: { packet: Packet; at: number } | undefined) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(result);
      };
      this.waiters.add(check);
      check();
    });
  }

  destroy(): void {
    this.socket.destroy();
  }
}

export interface FuzzTarget {
  port: number;
  device: { deviceid: string; token: string };
  /** Unique per run of a sequence: marks its shadow phases' correlation data and ackids. */
  tag: string;
  /** How long a connection waits for CONNACK, and a shadow phase for its closing marker's reply. */
  connackMs: number;
  replyMs: number;
}

export interface ShadowMiss {
  what: string;
  topic: string;
  qos: number;
  replies: number;
}

export interface SequenceReport {
  packets: number;
  connections: number;
  connacksAccepted: number;
  /** Malformed shadow requests on connections that stayed open until their phase's closing marker was answered. */
  shadowCounted: number;
  /** Counted requests with no error reply, or more than one. */
  shadowMisses: ShadowMiss[];
  /** Sent in a phase whose connection was closed (or never connected) before the closing marker's reply. */
  shadowUncounted: number;
  phasesCut: number;
  /** Phases on a connection that carried malformed bytes before, or whose Maximum Packet Size is too small for replies. */
  phasesSkipped: number;
  /** Phases whose connection was open but whose closing marker got no reply in time. */
  phasesTimedOut: number;
  parseErrors: string[];
}

const isErrorReply = (p: Packet): boolean => {
  if (p.cmd !== 'publish') return false;
  try {
    const body: unknown = JSON.parse(p.payload.toString());
    return typeof body === 'object' && body !== null && typeof (body as { status?: unknown }).status === 'number' && typeof (body as { code?: unknown }).code === 'string';
  } catch {
    return false;
  }
};

const ackidOf = (p: Packet): unknown => {
  if (p.cmd !== 'publish') return undefined;
  try {
    return (JSON.parse(p.payload.toString()) as { ackid?: unknown }).ackid;
  } catch {
    return undefined;
  }
};

/** Plays one sequence; never throws for anything the broker does. */
export async function runSequence(seq: Sequence, target: FuzzTarget): Promise<SequenceReport> {
  const report: SequenceReport = { packets: 0, connections: 0, connacksAccepted: 0, shadowCounted: 0, shadowMisses: [], shadowUncounted: 0, phasesCut: 0, phasesSkipped: 0, phasesTimedOut: 0, parseErrors: [] };
  const slots: (WireConnection | undefined)[] = [undefined, undefined];
  const all: WireConnection[] = [];
  let phase = 0;
  try {
    for (const step of seq.steps) {
      if (step.do === 'pause') {
        await new Promise((r) => setTimeout(r, step.ms));
      } else if (step.do === 'connect') {
        const wire = new WireConnection(target.port, step.version, step.autoAck);
        slots[step.slot] = wire;
        all.push(wire);
        report.connections++;
        report.packets++;
        const pipelined = step.pipelined ?? [];
        report.packets += pipelined.length;
        wire.maximumPacketSize = step.properties?.maximumPacketSize;
        wire.tainted = step.mutate !== undefined || pipelined.some(isMalformed);
        const connect: PacketSpec = { packet: connectPacket(step, target.device), ...(step.mutate ? { mutate: step.mutate } : {}) };
        wire.write(Buffer.concat([connect, ...pipelined].map((p) => encodeOrPing(p, step.version))));
        if (step.wait) {
          const connack = await wire.until((p) => p.cmd === 'connack', target.connackMs);
          if (connack?.packet.cmd === 'connack' && (connack.packet.reasonCode ?? connack.packet.returnCode ?? 0) === 0) report.connacksAccepted++;
        }
      } else if (step.do === 'send') {
        // Bytes before any CONNECT go on a connection of their own.
        let wire = slots[step.slot];
        if (!wire) {
          wire = new WireConnection(target.port, 4, false);
          slots[step.slot] = wire;
          all.push(wire);
          report.connections++;
        }
        report.packets += step.packets.length;
        if (step.packets.some(isMalformed)) wire.tainted = true;
        wire.write(Buffer.concat(step.packets.map((p) => encodeOrPing(p, wire.version))));
      } else if (step.do === 'drop') {
        slots[step.slot]?.destroy();
      } else {
        await runShadowPhase(step, slots[step.slot], target, `${target.tag}.${phase++}`, report);
      }
    }
  } finally {
    for (const wire of all) {
      report.parseErrors.push(...wire.parseErrors);
      wire.destroy();
    }
  }
  return report;
}

function connectPacket(step: ConnectStep, device: FuzzTarget['device']): IConnectPacket {
  return {
    cmd: 'connect',
    protocolId: 'MQTT',
    protocolVersion: step.version,
    clientId: device.deviceid,
    clean: step.clean,
    keepalive: step.keepalive,
    ...(step.credentials === 'device' ? { username: device.token } : step.credentials === 'wrong-token' ? { username: 'not-the-token' } : {}),
    ...(step.properties ? { properties: step.properties } : {}),
    ...(step.will ? { will: step.will } : {}),
  };
}

const PHASE_IDS = 40000;

const isMalformed = (spec: PacketSpec) => 'raw' in spec || spec.mutate !== undefined;

/** Below this Maximum Packet Size error replies may not fit, so a phase on such a connection is not counted. */
const REPLIES_FIT = 4096;

const hashOf = (text: string) => [...text].reduce((h, c) => sequenceSeed(h, c.charCodeAt(0)), 0);

async function runShadowPhase(step: Extract<Step, { do: 'shadow' }>, wire: WireConnection | undefined, target: FuzzTarget, tag: string, report: SequenceReport): Promise<void> {
  const n = step.requests.length;
  const connack = wire && (await wire.until((p) => p.cmd === 'connack', target.connackMs));
  if (!wire || wire.closed || connack?.packet.cmd !== 'connack' || (connack.packet.reasonCode ?? connack.packet.returnCode ?? 0) !== 0) {
    report.shadowUncounted += n;
    return;
  }
  if (wire.tainted || (wire.maximumPacketSize ?? Infinity) < REPLIES_FIT) {
    report.shadowUncounted += n;
    report.phasesSkipped++;
    return;
  }
  const { version } = wire;
  const send = (packets: Packet[]) => {
    report.packets += packets.length;
    wire.write(Buffer.concat(packets.map((packet) => generate(packet, { protocolVersion: version }))));
  };
  /** The phase's SUBSCRIBE or opening marker got no answer: cut by a close, or a broker that stopped answering. */
  const unanswered = () => {
    report.shadowUncounted += n;
    if (wire.closed) report.phasesCut++;
    else report.phasesTimedOut++;
  };
  // Replies to the phase's own requests need PUBREL for its QoS 2 requests and PUBCOMP for the broker's.
  const autoAck = wire.autoAck;
  wire.autoAck = true;
  try {
    send([{ cmd: 'subscribe', messageId: PHASE_IDS - 1, subscriptions: [{ topic: '@private/#', qos: 0 }] }]);
    const suback = await wire.until((p) => p.cmd === 'suback' && p.messageId === PHASE_IDS - 1, target.replyMs);
    if (!suback) return unanswered();
    // Requests of a device are served in order (docs/mqtt.md): once a marker is answered, everything sent before it
    // has been; a marker is a one-item batch with a unique ackid, answered on the batch reply topic.
    const marker = (which: string): Packet => publish('@shadow/batch/update', JSON.stringify({ ackid: `${tag}.${which}`, batch: [{ data: {}, ts: 0 }] }), 0);
    const markerReply = (which: string) => (p: Packet) => ackidOf(p) === `${tag}.${which}`;
    send([marker('open')]);
    const open = await wire.until(markerReply('open'), target.replyMs);
    if (!open) return unanswered();

    // Packet ids of their own per phase: a QoS 2 id still awaiting PUBREL in a persistent session would make the
    // request a duplicate, never served [MQTT-4.3.3-2].
    const firstId = PHASE_IDS + (hashOf(tag) % 2500) * 8;
    const aliases = new Map<number, string>();
    const requests = step.requests.map((r, i) => requestPacket(r, firstId + i, version, `${tag}/${i}`, aliases));
    const mixed: Packet[] = [...requests];
    for (const spec of step.noise) if ('packet' in spec) mixed.splice(Math.min(mixed.length, (spec.packet.messageId ?? 0) % (mixed.length + 1)), 0, spec.packet);
    send(mixed);
    send([marker('close')]);
    const close = await wire.until(markerReply('close'), target.replyMs, open.at + 1);
    if (!close) {
      if (wire.closed) {
        report.shadowUncounted += n;
        report.phasesCut++;
        return;
      }
      report.phasesTimedOut++;
    }
    report.shadowCounted += n;
    // Every QoS 2 exchange of the phase ends before the next step, so no packet id stays stored in the session.
    for (const r of requests.filter((p) => p.qos === 2)) await wire.until((p) => p.cmd === 'pubcomp' && p.messageId === r.messageId, target.replyMs, open.at + 1);
    const window = wire.received.slice(open.at + 1, close ? close.at : undefined);
    const misses = version === 5 ? missesByCorrelation(step.requests, window, tag) : missesByTopic(step.requests, window);
    report.shadowMisses.push(...misses);
  } finally {
    wire.autoAck = autoAck;
  }
}

/**
 * The PUBLISH of request `i`. MQTT 5: its Correlation Data names it; with a Topic Alias already set to its topic in
 * this phase it goes by alias alone (empty topic), else it sets the alias [MQTT-3.3.2-12].
 */
function requestPacket(r: ShadowRequest, messageId: number, version: Version, correlation: string, aliases: Map<number, string>): IPublishPacket {
  if (version === 4) return publish(r.topic, r.payload, r.qos, messageId);
  const properties: NonNullable<IPublishPacket['properties']> = { correlationData: Buffer.from(correlation) };
  if (r.responseTopic !== undefined) properties.responseTopic = r.responseTopic;
  let topic: string = r.topic;
  if (r.alias !== undefined) {
    properties.topicAlias = r.alias;
    if (aliases.get(r.alias) === r.topic) topic = '';
    aliases.set(r.alias, r.topic);
  }
  return publish(topic, r.payload, r.qos, messageId, { properties });
}

function missesByCorrelation(requests: ShadowRequest[], window: Packet[], tag: string): ShadowMiss[] {
  const replies = new Map<string, number>();
  for (const p of window) {
    if (p.cmd !== 'publish' || !isErrorReply(p)) continue;
    const key = p.properties?.correlationData?.toString();
    if (key !== undefined) replies.set(key, (replies.get(key) ?? 0) + 1);
  }
  return requests.flatMap((r, i) => {
    const count = replies.get(`${tag}/${i}`) ?? 0;
    return count === 1 ? [] : [{ what: r.what, topic: r.topic, qos: r.qos, replies: count }];
  });
}

function missesByTopic(requests: ShadowRequest[], window: Packet[]): ShadowMiss[] {
  const out: ShadowMiss[] = [];
  for (const [topic, replyTopic] of [['@shadow/data/update', UPDATE_RESPONSE], ['@shadow/batch/update', BATCH_RESPONSE]] as const) {
    const sent = requests.filter((r) => r.topic === topic);
    const got = window.filter((p) => p.cmd === 'publish' && p.topic === replyTopic && isErrorReply(p)).length;
    // In order: a request without its reply is one of the last ones (replies follow requests in order).
    if (got < sent.length) for (const r of sent.slice(got)) out.push({ what: r.what, topic, qos: r.qos, replies: 0 });
    if (got > sent.length) out.push({ what: `${got - sent.length} more error replies than requests`, topic, qos: -1, replies: got });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------- process watch

export interface ProcessEvent {
  kind: 'uncaughtException' | 'unhandledRejection';
  error: unknown;
  /** Sequences being played, or just finished, when it fired: the suspects. */
  suspects: number[];
}

/**
 * Listens for what would end a production process, until `remove()`. Mocha's own `uncaughtException` listener is set
 * aside meanwhile: it would fail the running hook or test at once while a fuzz run goes on (and the suite's `after`
 * would stop the stack under it), where the run should stop, replay the suspects and report. Mocha hands unhandled
 * rejections that are not its own on to the other listeners, so its listener for those stays.
 */
export function watchProcess(suspects: () => number[] = () => []) {
  const events: ProcessEvent[] = [];
  const onException = (error: unknown) => void events.push({ kind: 'uncaughtException', error, suspects: suspects() });
  const onRejection = (error: unknown) => void events.push({ kind: 'unhandledRejection', error, suspects: suspects() });
  const mochas = process.listeners('uncaughtException');
  for (const listener of mochas) process.off('uncaughtException', listener);
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  return {
    events,
    remove() {
      process.off('uncaughtException', onException);
      process.off('unhandledRejection', onRejection);
      for (const listener of mochas) process.on('uncaughtException', listener);
    },
  };
}

// ----------------------------------------------------------------------------------------------------- shrink, print

/**
 * Delta debugging (Zeller's ddmin) over the steps of a failing sequence, then over the packets of each write (a
 * CONNECT's pipelined packets included): the smallest sequence found for which `fails` still holds, within `budget`.
 */
export async function shrinkSteps(steps: Step[], fails: (steps: Step[]) => Promise<boolean>, budget: { trials: number; deadline: number }): Promise<Step[]> {
  let trials = 0;
  const spent = () => trials >= budget.trials || Date.now() > budget.deadline;
  const attempt = async (candidate: Step[]) => {
    trials++;
    return fails(candidate);
  };
  async function ddmin<T>(items: T[], rebuild: (subset: T[]) => Step[]): Promise<T[]> {
    let granularity = 2;
    while (items.length >= 2 && !spent()) {
      const size = Math.ceil(items.length / granularity);
      let reduced = false;
      for (let start = 0; start < items.length && !spent(); start += size) {
        const complement = [...items.slice(0, start), ...items.slice(start + size)];
        if (complement.length > 0 && (await attempt(rebuild(complement)))) {
          items = complement;
          granularity = Math.max(granularity - 1, 2);
          reduced = true;
          break;
        }
      }
      if (!reduced) {
        if (granularity >= items.length) break;
        granularity = Math.min(items.length, granularity * 2);
      }
    }
    return items;
  }
  let current = await ddmin(steps, (s) => s);
  for (let i = 0; i < current.length && !spent(); i++) {
    const step = current[i];
    const replaced = (packets: PacketSpec[]): Step[] =>
      current.map((s, j) => (j !== i ? s : step.do === 'send' ? { ...step, packets } : { ...(step as ConnectStep), pipelined: packets }));
    const packets = step.do === 'send' ? step.packets : step.do === 'connect' ? (step.pipelined ?? []) : [];
    if (packets.length >= 2) current = replaced(await ddmin(packets, replaced));
  }
  return current;
}

/** A sequence for a human, one step a line: Buffers as text when printable, else hex; long ones cut. */
export function describeSteps(steps: Step[]): string {
  const shown = (_key: string, value: unknown) => {
    const buffer = Buffer.isBuffer(value) ? value : isSerializedBuffer(value) ? Buffer.from(value.data) : undefined;
    if (buffer) {
      const asText = buffer.toString('utf8');
      const out = /^[\x20-\x7e]*$/.test(asText) ? asText : `hex:${buffer.toString('hex')}`;
      return out.length > 120 ? `${out.slice(0, 100)}…(${buffer.length} bytes)` : out;
    }
    return typeof value === 'string' && value.length > 120 ? `${value.slice(0, 60)}…(${value.length} chars)` : value;
  };
  return ['[', ...steps.map((step, i) => `  ${JSON.stringify(step, shown)}${i < steps.length - 1 ? ',' : ''}`), ']'].join('\n');
}

const isSerializedBuffer = (v: unknown): v is { type: 'Buffer'; data: number[] } =>
  typeof v === 'object' && v !== null && (v as { type?: unknown }).type === 'Buffer' && Array.isArray((v as { data?: unknown }).data);

import { IConnectPacket } from 'mqtt-packet';
import { CHAOS_IDS, harmlessPackets, invalidUtf8Packet, malformedPacket, ODD_FILTERS, oversizedPacket, publishProperties, qos1Packets, qos2Packets, subscribePackets, userProperties } from './packet-groups';
import { Mutation, PacketSpec, publish, Version } from './packets';
import { mulberry32, Rng, sequenceSeed } from './rng';
import { malformedShadowRequest, shadowSpam } from './shadow-requests';
import { ConnectStep, Sequence, Slot, Step } from './steps';

/** The kinds of sequence (QoS 2 sessions, shadow phases, chaos) and `generateSequence`, which picks one per index. */

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

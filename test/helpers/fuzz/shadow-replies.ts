import { generate, IPublishPacket, Packet } from 'mqtt-packet';
import { BATCH_RESPONSE, UPDATE_RESPONSE } from '../mqtt-shadow';
import type { FuzzTarget, SequenceReport, WireConnection } from './driver';
import { publish, Version } from './packets';
import { sequenceSeed } from './rng';
import { ShadowRequest, Step } from './steps';

/**
 * A counted shadow phase: sends malformed shadow requests between two markers and checks that each got exactly one
 * error reply, matched by Correlation Data (MQTT 5) or by topic and order (MQTT 3.1.1).
 */

export interface ShadowMiss {
  what: string;
  topic: string;
  qos: number;
  replies: number;
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

const PHASE_IDS = 40000;

/** Below this Maximum Packet Size error replies may not fit, so a phase on such a connection is not counted. */
const REPLIES_FIT = 4096;

const hashOf = (text: string) => [...text].reduce((h, c) => sequenceSeed(h, c.charCodeAt(0)), 0);

export async function runShadowPhase(step: Extract<Step, { do: 'shadow' }>, wire: WireConnection | undefined, target: FuzzTarget, tag: string, report: SequenceReport): Promise<void> {
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

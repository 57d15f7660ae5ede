import { generate, IConnectPacket, Packet, parser } from 'mqtt-packet';
import { connect, Socket } from 'node:net';
import { encodeOrPing, PacketSpec, Version } from './packets';
import { runShadowPhase, ShadowMiss } from './shadow-replies';
import { ConnectStep, Sequence } from './steps';

/** Plays a sequence against a broker over raw TCP connections and reports what happened. */

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
  /** Phases whose connection was open but whose SUBSCRIBE, opening or closing marker got no reply in time. */
  phasesTimedOut: number;
  parseErrors: string[];
}

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

const isMalformed = (spec: PacketSpec) => 'raw' in spec || spec.mutate !== undefined;

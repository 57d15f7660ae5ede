import { generate, parser, Packet } from 'mqtt-packet';
import { connect, Socket } from 'node:net';

/**
 * An MQTT session written packet by packet with mqtt-packet, for what mqtt.js will not do on purpose: publish past
 * the broker's Receive Maximum, or hold back PUBREL. Any protocol version.
 */
export interface WireSession {
  send(packet: Packet): void;
  /** Writes several packets in one go, so the broker reads them in one chunk. */
  sendAll(packets: Packet[]): void;
  /** Writes bytes as they are (a malformed packet). */
  sendRaw(bytes: Buffer): void;
  /** The next packet of kind `cmd` (matching `pred`) the broker sends, oldest first; rejects once the socket closes. */
  next<C extends Packet['cmd']>(cmd: C, pred?: (p: Extract<Packet, { cmd: C }>) => boolean): Promise<Extract<Packet, { cmd: C }>>;
  /** Every packet received so far. */
  received: Packet[];
  closed: Promise<void>;
  isClosed(): boolean;
  destroy(): void;
}

export function wireSession(port: number, protocolVersion: 4 | 5): WireSession {
  const socket: Socket = connect(port, '127.0.0.1');
  const read = parser({ protocolVersion });
  const received: Packet[] = [];
  /** Received and not yet taken by `next`. */
  const backlog: Packet[] = [];
  const waiting: { cmd: string; pred: (p: Packet) => boolean; resolve: (p: Packet) => void }[] = [];
  let closed = false;
  const closedPromise = new Promise<void>((resolve) => socket.once('close', () => ((closed = true), resolve())));
  socket.on('error', () => undefined);
  socket.on('data', (chunk) => read.parse(chunk));
  read.on('packet', (packet: Packet) => {
    received.push(packet);
    const at = waiting.findIndex((w) => w.cmd === packet.cmd && w.pred(packet));
    if (at >= 0) waiting.splice(at, 1)[0].resolve(packet);
    else backlog.push(packet);
  });
  return {
    send: (packet) => void socket.write(generate(packet, { protocolVersion })),
    sendAll: (packets) => void socket.write(Buffer.concat(packets.map((p) => generate(p, { protocolVersion })))),
    sendRaw: (bytes) => void socket.write(bytes),
    next: <C extends Packet['cmd']>(cmd: C, pred: (p: Extract<Packet, { cmd: C }>) => boolean = () => true) => {
      type P = Extract<Packet, { cmd: C }>;
      const already = backlog.find((p) => p.cmd === cmd && pred(p as P));
      if (already) {
        backlog.splice(backlog.indexOf(already), 1);
        return Promise.resolve(already as P);
      }
      return Promise.race([
        new Promise<P>((resolve) => waiting.push({ cmd, pred: pred as (p: Packet) => boolean, resolve: resolve as (p: Packet) => void })),
        closedPromise.then(() => Promise.reject(new Error(`the broker closed the connection before a ${cmd}`))),
      ]);
    },
    received,
    closed: closedPromise,
    isClosed: () => closed,
    destroy: () => socket.destroy(),
  };
}

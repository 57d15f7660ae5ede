import { connect, Socket } from 'node:net';
import { TestDevice } from './devices';

/**
 * A hand-written MQTT 3.1.1 session over TCP, for packets mqtt.js will not send (it refuses invalid filters such as
 * `@msg/a/#/b` before they leave the client). Knows only CONNECT, SUBSCRIBE and PINGREQ.
 */
export interface RawSession {
  /** Sends one SUBSCRIBE (QoS 0 for each filter) and returns the return codes of its SUBACK [MQTT-3.9.3]. */
  subscribe(filters: string[]): Promise<number[]>;
  /** Resolves when a PINGREQ is answered with PINGRESP: the connection is up and served. */
  ping(): Promise<void>;
  /** Resolves once the socket has closed. */
  closed: Promise<void>;
  isClosed(): boolean;
  destroy(): void;
}

interface Packet {
  type: number;
  body: Buffer;
}

const CONNACK = 2;
const SUBACK = 9;
const PINGRESP = 13;

/** An MQTT UTF-8 string (or binary data): two bytes of length, then the bytes [MQTT-1.5.3]. */
export const utf8 = (s: string | Buffer) => {
  const bytes = Buffer.from(s);
  return Buffer.concat([Buffer.from([bytes.length >> 8, bytes.length & 0xff]), bytes]);
};

/** The Remaining Length field of a fixed header, 1 to 4 bytes [MQTT-2.2.3]. */
export function remainingLength(n: number): Buffer {
  const out: number[] = [];
  do {
    let byte = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    out.push(byte);
  } while (n > 0);
  return Buffer.from(out);
}

/** A whole packet: its first byte, the Remaining Length, then `body`. */
export const frame = (firstByte: number, body: Buffer) => Buffer.concat([Buffer.from([firstByte]), remainingLength(body.length), body]);

/** Splits complete packets off the front of `buf`. */
function parsePackets(buf: Buffer): { packets: Packet[]; rest: Buffer } {
  const packets: Packet[] = [];
  for (;;) {
    let length = 0;
    let multiplier = 1;
    let i = 1;
    for (; i < buf.length && i <= 4; i++) {
      length += (buf[i] & 0x7f) * multiplier;
      multiplier *= 128;
      if ((buf[i] & 0x80) === 0) break;
    }
    if (i >= buf.length || buf.length < i + 1 + length) return { packets, rest: buf };
    packets.push({ type: buf[0] >> 4, body: buf.subarray(i + 1, i + 1 + length) });
    buf = buf.subarray(i + 1 + length);
  }
}

interface ConnectFields {
  clientId: string;
  token: string;
  clean?: boolean;
}

/** The bytes of an MQTT 3.1.1 CONNECT for `device`: clean session, username = token, no password, keep-alive 60 s. */
export const connectPacket = (device: Pick<TestDevice, 'deviceid' | 'token'>) => connectPacketWith({ clientId: device.deviceid, token: device.token });

/**
 * The bytes of an MQTT 3.1.1 CONNECT with ClientID `clientId` and username `token`, no password, keep-alive 60 s;
 * a clean session unless `clean` is false.
 */
export function connectPacketWith({ clientId, token, clean = true }: ConnectFields): Buffer {
  const usernameFlag = 0x80;
  const cleanSession = clean ? 0x02 : 0;
  const body = Buffer.concat([utf8('MQTT'), Buffer.from([4, usernameFlag | cleanSession, 0, 60]), utf8(clientId), utf8(token)]);
  return frame(0x10, body);
}

/** Sends one CONNECT and resolves with its CONNACK's session present flag and return code [MQTT-3.2.2]. */
export function connackOf(port: number, fields: ConnectFields): Promise<{ sessionPresent: boolean; returnCode: number }> {
  const socket: Socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    let pending: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      const { packets, rest } = parsePackets(Buffer.concat([pending, chunk]));
      pending = rest;
      const connack = packets.find((p) => p.type === CONNACK);
      if (!connack) return;
      socket.destroy();
      resolve({ sessionPresent: (connack.body[0] & 1) === 1, returnCode: connack.body[1] });
    });
    socket.once('close', () => reject(new Error('the broker closed the connection without a CONNACK')));
    socket.write(connectPacketWith(fields));
  });
}

/** Connects `device` (clean session, password empty) and resolves once CONNACK accepts it. */
export async function rawSession(port: number, device: TestDevice): Promise<RawSession> {
  const socket: Socket = connect(port, '127.0.0.1');
  let pending: Buffer = Buffer.alloc(0);
  const waiting: { type: number; resolve: (p: Packet) => void }[] = [];
  let closed = false;
  const closedPromise = new Promise<void>((resolve) => socket.once('close', () => ((closed = true), resolve())));
  socket.on('error', () => undefined);
  socket.on('data', (chunk) => {
    const { packets, rest } = parsePackets(Buffer.concat([pending, chunk]));
    pending = rest;
    for (const packet of packets) {
      const at = waiting.findIndex((w) => w.type === packet.type);
      if (at >= 0) waiting.splice(at, 1)[0].resolve(packet);
    }
  });
  const next = (type: number) =>
    Promise.race([
      new Promise<Packet>((resolve) => waiting.push({ type, resolve })),
      closedPromise.then(() => Promise.reject(new Error(`the broker closed the connection before packet type ${type}`))),
    ]);

  socket.write(connectPacket(device));
  const connack = await next(CONNACK);
  if (connack.body[1] !== 0) throw new Error(`CONNACK refused with return code ${connack.body[1]}`);

  let packetId = 0;
  return {
    async subscribe(filters) {
      packetId++;
      const body = Buffer.concat([
        Buffer.from([packetId >> 8, packetId & 0xff]),
        ...filters.map((f) => Buffer.concat([utf8(f), Buffer.from([0])])),
      ]);
      const suback = next(SUBACK);
      socket.write(frame(0x82, body));
      return [...(await suback).body.subarray(2)];
    },
    async ping() {
      const pong = next(PINGRESP);
      socket.write(Buffer.from([0xc0, 0x00]));
      await pong;
    },
    closed: closedPromise,
    isClosed: () => closed,
    destroy: () => socket.destroy(),
  };
}

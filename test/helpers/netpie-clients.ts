import { connect } from 'node:net';
import type { IPublishPacket } from 'mqtt-packet';
import { WireSession, wireSession } from './mqtt-wire';
import { frame, remainingLength, utf8 } from './mqtt-raw';

/**
 * Byte-level fixtures for the suites of test/integration/clients: requests and MQTT packets written the way the
 * public NETPIE client libraries write them (header order, HTTP version, CONNECT flags and keepalive), sent over real
 * sockets, so the service sees exactly the bytes a device or a flow engine would send.
 */

export interface RawHttpRequest {
  method: string;
  /** Path and query exactly as the library puts them on the request line (nothing is encoded here). */
  target: string;
  /** `HTTP/1.0` (MicroPython urequests before 2023) or `HTTP/1.1`. */
  version?: 'HTTP/1.0' | 'HTTP/1.1';
  /** In the library's order; a name may repeat (old urequests writes Content-Type twice). */
  headers: [string, string][];
  body?: string | Buffer;
}

export interface RawHttpResponse {
  status: number;
  /** Lower-cased names; a repeated header keeps its last value. */
  headers: Record<string, string>;
  /** Whether the answer came with `Transfer-Encoding: chunked` (old urequests raises on it). */
  chunked: boolean;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: any;
}

/** The bytes of one HTTP request, built as the libraries build theirs: request line, headers, blank line, body. */
export function httpRequestBytes(req: RawHttpRequest): Buffer {
  const head = [`${req.method} ${req.target} ${req.version ?? 'HTTP/1.1'}`, ...req.headers.map(([k, v]) => `${k}: ${v}`)];
  return Buffer.concat([Buffer.from(head.join('\r\n') + '\r\n\r\n', 'latin1'), Buffer.from(req.body ?? '')]);
}

function decodeChunked(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
    if (!size) break;
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/**
 * Sends the request's bytes on a fresh TCP connection and reads the answer until the server closes it: every library
 * replayed here sends `Connection: close` (or speaks HTTP/1.0), so the close ends the answer, as it does for them.
 */
export function rawHttp(baseUrl: string, req: RawHttpRequest, ms = 5000): Promise<RawHttpResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer to ${req.method} ${req.target} in time`));
    }, ms);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks);
      const headEnd = raw.indexOf('\r\n\r\n');
      if (headEnd < 0) return reject(new Error(`not an HTTP answer: ${raw.toString('latin1').slice(0, 200)}`));
      const [statusLine, ...lines] = raw.subarray(0, headEnd).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const chunked = /chunked/i.test(headers['transfer-encoding'] ?? '');
      const rest = raw.subarray(headEnd + 4);
      const body = chunked ? decodeChunked(rest) : rest;
      const text = body.toString('utf8');
      let json: unknown;
      try {
        json = text === '' ? undefined : JSON.parse(text);
      } catch {
        json = undefined;
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, chunked, text, json });
    });
    socket.write(httpRequestBytes(req));
  });
}

export interface ClassicConnect {
  clientId: string;
  /** Absent: neither user name nor password flag (no library here does that, but a wrong-credentials case may). */
  username?: string;
  /** Sent, with its flag, whenever a user name is: umqtt.simple, PubSubClient and paho all send an empty one as such. */
  password?: string;
  keepalive: number;
  clean: boolean;
}

/**
 * An MQTT 3.1.1 CONNECT laid out as umqtt.simple, NETPIE's microgear.py and PubSubClient lay it out: protocol name
 * `MQTT`, level 4, flags (user name 0x80, password 0x40, clean session 0x02), keepalive, then ClientID, user name and
 * password as length-prefixed strings [MQTT-3.1].
 */
export function classicConnect(c: ClassicConnect): Buffer {
  let flags = c.clean ? 0x02 : 0;
  if (c.username !== undefined) flags |= 0xc0;
  const variableHeader = Buffer.concat([utf8('MQTT'), Buffer.from([0x04, flags, c.keepalive >> 8, c.keepalive & 0xff])]);
  const payload = [utf8(c.clientId)];
  if (c.username !== undefined) payload.push(utf8(c.username), utf8(c.password ?? ''));
  return frame(0x10, Buffer.concat([variableHeader, ...payload]));
}

/** A QoS 0 PUBLISH without retain: what every library here sends for its publishes. */
export const qos0Publish = (topic: string, payload: string | Buffer) => frame(0x30, Buffer.concat([utf8(topic), Buffer.from(payload)]));

/** A SUBSCRIBE of one filter, as umqtt.simple and PubSubClient send one per call. */
export const singleSubscribe = (packetId: number, filter: string, qos = 0) =>
  frame(0x82, Buffer.concat([Buffer.from([packetId >> 8, packetId & 0xff]), utf8(filter), Buffer.from([qos])]));

export const PINGREQ = Buffer.from([0xc0, 0x00]);

/** The whole size of a PUBLISH on the wire (fixed header included), which PubSubClient compares with its buffer. */
export function wireSizeOf(packet: IPublishPacket): number {
  // mqtt-packet's parser sets `length` (the Remaining Length) on every packet it reads.
  const remaining = packet.length ?? 0;
  return 1 + remainingLength(remaining).length + remaining;
}

/**
 * A hand-framed MQTT 3.1.1 session: the CONNECT is sent as given, and what the broker sends back is parsed (CONNACK,
 * SUBACK, PUBLISH) for the test to read, as the library's own parser would.
 */
export function classicSession(port: number, connect: Buffer): WireSession {
  const session = wireSession(port, 4);
  session.sendRaw(connect);
  return session;
}

/** Rejects when `promise` has not settled within `ms`: a reply the library waits for that never comes. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
    }),
  ]);
}

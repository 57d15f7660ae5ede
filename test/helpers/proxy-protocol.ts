import { IClientOptions, MqttClient } from 'mqtt';
import { createConnection, isIPv4, Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { mqttOver, PlainResponse, plainHttp } from './from-address';

/**
 * What a balancer sends before a relayed connection's bytes (HAProxy's "The PROXY protocol"), for tests that play the
 * balancer: the service must take `source` as the client's address.
 */

/** Version 1: one line of text. */
export function proxyV1(source: string, sourcePort = 40000, destination = '127.0.0.1', destinationPort = 8080): Buffer {
  return Buffer.from(`PROXY ${isIPv4(source) ? 'TCP4' : 'TCP6'} ${source} ${destination} ${sourcePort} ${destinationPort}\r\n`, 'ascii');
}

const V2_SIGNATURE = Buffer.from('0d0a0d0a000d0a515549540a', 'hex');

/** Version 2, command PROXY over TCP, for an IPv4 source; `tlvs` are appended as they are (the service skips them). */
export function proxyV2(source: string, sourcePort = 40000, tlvs: Buffer = Buffer.alloc(0)): Buffer {
  const addresses = Buffer.alloc(12);
  source.split('.').forEach((byte, i) => addresses.writeUInt8(Number(byte), i));
  [127, 0, 0, 1].forEach((byte, i) => addresses.writeUInt8(byte, 4 + i));
  addresses.writeUInt16BE(sourcePort, 8);
  addresses.writeUInt16BE(8080, 10);
  const fixed = Buffer.from([0x21, 0x11, 0, 0]);
  fixed.writeUInt16BE(addresses.length + tlvs.length, 2);
  return Buffer.concat([V2_SIGNATURE, fixed, addresses, tlvs]);
}

/** Version 2, command LOCAL: the balancer's own connection (a health check). */
export const proxyV2Local = () => Buffer.concat([V2_SIGNATURE, Buffer.from([0x20, 0x00, 0, 0])]);

/** A TCP connection to `port` on loopback that sends `header` first. */
export function connectWithHeader(port: number, header: Buffer): Socket {
  const socket = createConnection({ host: '127.0.0.1', port });
  socket.write(header);
  return socket;
}

/** A TLS connection whose PROXY header goes before the handshake, as a balancer passing TLS through sends it. */
export function tlsConnectWithHeader(port: number, header: Buffer, ca: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const raw = createConnection({ host: '127.0.0.1', port }, () => raw.write(header, () => resolve(tlsConnect({ socket: raw, ca, servername: 'localhost' }))));
    raw.once('error', reject);
  });
}

/** One HTTP request on a connection that starts with `header`; the body goes as JSON. */
export function httpWithHeader(header: Buffer, baseUrl: string, method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<PlainResponse> {
  return plainHttp({ createConnection: () => connectWithHeader(Number(new URL(baseUrl).port), header) }, baseUrl, method, path, headers, body);
}

/** An MQTT CONNECT on a connection that starts with `header`: the connected client, or the refusal (`code`). */
export async function mqttWithHeader(header: Buffer, port: number, options: IClientOptions, open: (port: number, header: Buffer) => Socket | Promise<Socket> = connectWithHeader): Promise<MqttClient> {
  const socket = await open(port, header);
  return mqttOver(() => socket, options);
}

/** Resolves with what the server sent before it closed `socket` (or after `ms`, with `timedOut`). */
export function untilClosed(socket: Socket, ms = 8000): Promise<{ received: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ received, timedOut: true });
    }, ms);
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ received, timedOut: false });
    });
  });
}

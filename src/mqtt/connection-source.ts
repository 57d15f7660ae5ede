import type { Client } from 'aedes';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The address a connection comes from: its socket's, or for MQTT over WebSocket the upgraded request's. Behind a
 * balancer speaking the PROXY protocol, the device's (net/proxy-protocol-listener.ts sets it on the socket).
 */
export function sourceOf(client: Client): string {
  const socket = client.conn as Partial<Socket>;
  return socket.remoteAddress ?? (client.req as IncomingMessage | undefined)?.socket.remoteAddress ?? 'unknown';
}

import type { Aedes } from 'aedes';
import { createServer as createHttpServer, IncomingMessage, Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { createWebSocketStream, WebSocket, WebSocketServer } from 'ws';

/** Where the HTTP and HTTPS servers serve MQTT over WebSocket: the path mqtt.js, Paho and most brokers use. */
export const MQTT_WS_PATH = '/mqtt';

/**
 * The WebSocket subprotocols of MQTT: `mqtt` for 3.1.1 [MQTT-6.0.0-3] and for 5 (MQTT 5.0 §6, [MQTT-6.0.0-4]), `mqttv3.1`
 * for MQTT 3.1 clients (Paho's older JavaScript client). The first one the client offers is chosen; the CONNECT says
 * which version it speaks.
 */
const SUBPROTOCOLS = new Set(['mqtt', 'mqttv3.1']);

/**
 * One WebSocket message may carry at most this. It is well above the largest packet the broker serves (a 256 KiB
 * payload, docs/limits-and-errors.md "Limits"), and keeps a client from making ws buffer its 100 MiB default.
 */
const MAX_FRAME_BYTES = 1024 * 1024;

export interface MqttOverWebSocket {
  /** Serves MQTT on `server`'s upgrade requests for MQTT_WS_PATH; upgrade requests for other paths get 404. */
  serveOn(server: HttpServer | HttpsServer): void;
  /** A server of its own (MQTT_WS_PORT): MQTT on every path, since clients differ; plain requests get 426. */
  createDedicatedServer(): HttpServer;
  /** Cuts the WebSockets still open. After the broker has closed its sessions, only those that never sent CONNECT. */
  terminateAll(): void;
}

/**
 * MQTT over WebSocket (issue 6, section 3): each WebSocket becomes a stream handed to the same aedes instance as the
 * TCP listener, so authentication, ACL, presence and rate limits are the TCP ones.
 */
export function createMqttOverWebSocket(aedes: Pick<Aedes, 'handle'>): MqttOverWebSocket {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_FRAME_BYTES,
    handleProtocols: (offered) => [...offered].find((p) => SUBPROTOCOLS.has(p)) ?? false,
  });
  wss.on('connection', (ws: WebSocket, req: IncomingMessage) => {
    aedes.handle(createWebSocketStream(ws), req);
  });

  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) =>
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));

  return {
    serveOn(server) {
      server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
        if (pathOf(req) === MQTT_WS_PATH) return upgrade(req, socket, head);
        socket.on('error', () => undefined);
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      });
    },
    createDedicatedServer() {
      const server = createHttpServer((_req, res) => {
        res.writeHead(426, { Upgrade: 'websocket', Connection: 'Upgrade', 'Content-Type': 'text/plain' });
        res.end('MQTT over WebSocket only\n');
      });
      server.on('upgrade', upgrade);
      return server;
    },
    terminateAll() {
      for (const ws of wss.clients) ws.terminate();
    },
  };
}

function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

import { MqttClient, IClientOptions } from 'mqtt';
import { request } from 'node:http';
import { createConnection, Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/**
 * Clients that connect from another loopback address (127.0.0.2, ...: the whole of 127/8 is loopback on Linux), so
 * that a test can play several source addresses against one service.
 */

export interface PlainResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** How a test request reaches the service: from another loopback address, or over a connection the test opens. */
export type Route = { localAddress: string } | { createConnection: () => Socket };

/** One HTTP request over `route`; the body is sent as JSON when it is not a string. */
export function plainHttp(route: Route, baseUrl: string, method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<PlainResponse> {
  const url = new URL(path, baseUrl);
  const data = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method, ...route, headers: { ...(data ? { 'content-type': 'application/json' } : {}), ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text === '' ? undefined : JSON.parse(text);
          } catch {
            // not JSON: keep the text
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** One HTTP request from `localAddress`. */
export const httpFrom = (localAddress: string, baseUrl: string, method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
  plainHttp({ localAddress }, baseUrl, method, path, headers, body);

/**
 * An MQTT CONNECT over `stream`: resolves with the connected client, or rejects with the refusal (its `code` is the
 * CONNACK return or reason code, `closed` when the connection closed first).
 */
export function mqttOver(stream: () => Duplex, options: IClientOptions): Promise<MqttClient> {
  return new Promise((resolve, reject) => {
    const client = new MqttClient(stream, { reconnectPeriod: 0, ...options });
    client.once('connect', () => resolve(client));
    client.once('error', (err) => {
      client.end(true);
      reject(err);
    });
    client.once('close', () => reject(Object.assign(new Error('connection closed'), { code: 'closed' })));
  });
}

/** An MQTT CONNECT from `localAddress`. */
export function mqttFrom(localAddress: string, mqttUrl: string, options: IClientOptions): Promise<MqttClient> {
  const { hostname, port } = new URL(mqttUrl);
  return mqttOver(() => createConnection({ host: hostname, port: Number(port), localAddress }), options);
}

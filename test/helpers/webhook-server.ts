import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A local HTTP server for webhooks to reach: records every request and answers from a script (200 by default). */
export interface WebhookServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  received: ReceivedRequest[];
  /** Statuses for the next requests, in order; then 200. */
  answerWith(...statuses: number[]): void;
  /** Resolves once `count` requests have arrived, or rejects after `ms`. */
  waitFor(count: number, ms?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startWebhookServer(): Promise<WebhookServer> {
  const received: ReceivedRequest[] = [];
  const script: number[] = [];
  const waiters: (() => void)[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = script.shift() ?? 200;
      res.end('ok');
      waiters.splice(0).forEach((w) => w());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    answerWith: (...statuses) => script.push(...statuses),
    waitFor(count, ms = 5000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${received.length} of ${count} webhook requests arrived in time`)), ms);
        const check = () => {
          if (received.length >= count) {
            clearTimeout(timer);
            resolve(received.slice(0, count));
          } else waiters.push(check);
        };
        check();
      });
    },
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** Polls `read` until `done` accepts its result, or fails after `ms` with the last result. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until) throw new Error(`not as expected in time: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

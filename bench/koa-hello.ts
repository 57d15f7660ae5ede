import Koa from 'koa';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface KoaHello {
  url: string;
  close(): Promise<void>;
}

/**
 * The yardstick: the smallest Koa app, on the same Node and machine, measured in the same run as the service. The
 * machine is shared, so absolute figures drift between runs; ratios against this one do much less.
 */
export async function startKoaHello(): Promise<KoaHello> {
  const app = new Koa();
  app.use((ctx) => {
    ctx.body = 'hello world';
  });
  const server = createServer(app.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

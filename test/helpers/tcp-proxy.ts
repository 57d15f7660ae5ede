import { createConnection, createServer, Socket } from 'node:net';

export interface TcpProxy {
  /** The port to give clients instead of the target's (loopback). */
  readonly port: number;
  /** Breaks every connection (RST) and refuses new ones until `restore`: the target looks unreachable. */
  cut(): void;
  restore(): void;
  /** Holds every chunk `ms` before passing it on, each way (0: at once), in order: the target looks far away. */
  lag(ms: number): void;
  close(): Promise<void>;
}

/**
 * A loopback TCP forwarder to `target` (`host:port`), for fault injection: it lets a test take a real backend away
 * from the service and give it back, without stopping the backend that other suites share.
 */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  const open = new Set<Socket>();
  let cut = false;
  let lagMs = 0;
  const track = (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = createServer((client) => {
    if (cut) {
      client.resetAndDestroy();
      return;
    }
    const upstream = createConnection({ host, port });
    track(client);
    track(upstream);
    forward(client, upstream, () => lagMs);
    forward(upstream, client, () => lagMs);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no port');
  return {
    port: address.port,
    cut() {
      cut = true;
      for (const socket of open) socket.resetAndDestroy();
    },
    restore() {
      cut = false;
    },
    lag(ms) {
      lagMs = ms;
    },
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Passes what `from` reads on to `to`, each chunk held `lagMs()` from its arrival, never overtaking an earlier one. */
function forward(from: Socket, to: Socket, lagMs: () => number): void {
  let previous = Promise.resolve();
  from.on('data', (chunk: Buffer) => {
    const due = Date.now() + lagMs();
    previous = previous.then(async () => {
      const wait = due - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (!to.destroyed) to.write(chunk);
    });
  });
}

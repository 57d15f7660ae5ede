import type { Server, Socket } from 'node:net';

export interface OpenConnections {
  /** Destroys every connection of the server that is still open. */
  destroyAll(): void;
}

/**
 * Remembers the open connections of an MQTT listener, so a stop can cut the ones no MQTT session owns: the broker
 * closes its sessions itself, but a client that never sent CONNECT would hold the stop until aedes gives up on it
 * (30 s), and one that never finished its TLS handshake until Node does (120 s).
 */
export function trackOpenConnections(server: Server): OpenConnections {
  const open = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  return {
    destroyAll() {
      for (const socket of open) socket.destroy();
    },
  };
}

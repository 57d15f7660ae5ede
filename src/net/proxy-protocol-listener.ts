import { BlockList, isIP, Server, Socket } from 'node:net';
import { Server as TlsServer, TLSSocket } from 'node:tls';
import { parseProxyHeader, ProxiedSource, ProxyHeader } from './proxy-protocol';

/** PROXY_PROTOCOL=true: the settings of every TCP listener. */
export interface ProxyProtocolSettings {
  /** Addresses and CIDR ranges allowed to send the header (PROXY_PROTOCOL_TRUSTED); empty: any. */
  readonly trusted: readonly string[];
}

/**
 * A balancer sends the header at once, with or before the client's first bytes (HAProxy writes it on connect): a
 * connection silent this long is not from one, and is closed rather than held.
 */
export const PROXY_HEADER_TIMEOUT_MS = 5000;

/**
 * Makes `server` read a PROXY protocol header (proxy-protocol.ts) on every connection before the server sees it: the
 * header is taken off the stream, the rest of the bytes are put back (`unshift`), and the source it names becomes the
 * socket's `remoteAddress`, `remotePort` and `remoteFamily`, so every reader of the address (Koa's `ctx.ip`, the MQTT
 * hooks, logs) sees the device instead of the balancer. A connection from an untrusted address, without a valid
 * header, or silent for PROXY_HEADER_TIMEOUT_MS is closed: never served with the balancer's address in place of the
 * device's. On a TLS server the header comes before the handshake, as balancers send it.
 *
 * It takes over the 'connection' listeners the server has when called (Node's HTTP and TLS servers add theirs when
 * they are made); listeners added later see the socket as soon as it is accepted, header unread.
 */
export function acceptProxyProtocol(
  server: Server,
  settings: ProxyProtocolSettings,
  onRefused: (why: string, peer: string | undefined) => void = () => undefined,
  timeoutMs = PROXY_HEADER_TIMEOUT_MS,
): void {
  const serve = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  const trusted = trustedPeers(settings.trusted);
  server.on('connection', (socket: Socket) => {
    const peer = socket.remoteAddress;
    if (!trusted(peer)) {
      onRefused('not a trusted sender of PROXY protocol headers (PROXY_PROTOCOL_TRUSTED)', peer);
      socket.destroy();
      return;
    }
    readProxyHeader(socket, timeoutMs, (err, header) => {
      if (err !== undefined) {
        onRefused(err, peer);
        socket.destroy();
        return;
      }
      if (header?.kind === 'proxied') takeSource(socket, header.source);
      for (const listener of serve) listener.call(server, socket);
    });
  });
  // A TLS server wraps the TCP socket in a TLSSocket, which asks the operating system for its address again.
  if (server instanceof TlsServer) {
    server.prependListener('secureConnection', (tlsSocket: TLSSocket) => {
      const source = sources.get((tlsSocket as unknown as { _parent?: Socket })._parent as Socket);
      if (source) takeSource(tlsSocket, source);
    });
  }
}

/** The source each relayed TCP socket was given, for the TLSSocket made on it. */
const sources = new WeakMap<Socket, ProxiedSource>();

function takeSource(socket: Socket, source: ProxiedSource): void {
  sources.set(socket, source);
  // Own properties shadow net.Socket's getters, which would ask the operating system (and find the balancer).
  Object.defineProperties(socket, {
    remoteAddress: { value: source.address, configurable: true },
    remotePort: { value: source.port, configurable: true },
    remoteFamily: { value: source.family, configurable: true },
  });
}

/**
 * Reads from `socket` until a whole header is in, then puts back the bytes after it and calls `done` once; the socket
 * is left paused for whoever reads it next. Nothing past the header's bytes is interpreted here.
 */
function readProxyHeader(socket: Socket, timeoutMs: number, done: (err: string | undefined, header?: ProxyHeader) => void): void {
  let received = Buffer.alloc(0);
  const timer = setTimeout(() => finish('no PROXY protocol header in time'), timeoutMs);
  const onEnd = () => finish('closed before a whole PROXY protocol header');
  const onError = () => finish('connection error before a whole PROXY protocol header');
  const finish = (err: string | undefined, header?: ProxyHeader) => {
    clearTimeout(timer);
    socket.off('readable', onReadable);
    socket.off('end', onEnd);
    socket.off('error', onError);
    done(err, header);
  };
  function onReadable() {
    for (let chunk: Buffer | null; (chunk = socket.read() as Buffer | null) !== null; ) {
      received = Buffer.concat([received, chunk]);
      const parsed = parseProxyHeader(received);
      if ('incomplete' in parsed) continue;
      if ('error' in parsed) return finish(parsed.error);
      const rest = received.subarray(parsed.length);
      if (rest.length > 0) socket.unshift(rest);
      return finish(undefined, parsed.header);
    }
  }
  socket.on('readable', onReadable);
  socket.once('end', onEnd);
  socket.on('error', onError);
}

/** PROXY_PROTOCOL_TRUSTED as a test of a peer's address; an IPv4-mapped IPv6 address counts as its IPv4 one. */
function trustedPeers(entries: readonly string[]): (peer: string | undefined) => boolean {
  if (entries.length === 0) return () => true;
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split('/');
    const type = isIP(address) === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return (peer) => {
    if (peer === undefined) return false;
    const address = peer.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
    return list.check(address, isIP(address) === 4 ? 'ipv4' : 'ipv6');
  };
}

import type { Writable } from 'node:stream';

/**
 * Makes every write to a connection within one turn of the event loop leave in one socket write (issue 26 §1). aedes
 * writes each packet on its own (lib/write.js), and mqtt-packet corks only until the next tick, while aedes hands
 * deliveries on with a `setImmediate` each: a burst to one client cost one write (one syscall) per packet. Here the
 * first write of a turn corks the stream and a `setImmediate` uncorks it, so what the turn produced for this
 * connection goes out together (a socket's `writev`), in the order written, and nothing waits past the turn.
 *
 * aedes ends a connection with `destroy()` (lib/client.js `close`), which throws away what a corked stream holds: a
 * refusal's CONNACK, a DISCONNECT with its reason code, the last deliveries. So a destroy first sends what is held
 * (every cork level, mqtt-packet's included), as the stream would have without the cork. `end()` flushes by itself
 * (Node's Writable).
 *
 * Only for streams that take many chunks at once (`_writev`: TCP and TLS sockets). A stream without it writes what
 * a cork held one chunk at a time, each after the last one's callback, and a destroy meanwhile loses the rest: the
 * WebSocket stream (`createWebSocketStream`) is such a one, and is left as it is.
 */
export function coalesceWrites<S extends Writable>(stream: S): S {
  if (typeof (stream as { _writev?: unknown })._writev !== 'function') return stream;
  const { write, destroy } = stream;
  let corked = false;
  const flush = () => {
    if (!corked) return;
    corked = false;
    stream.uncork();
  };
  stream.write = function coalescedWrite(this: S, ...args: Parameters<S['write']>) {
    if (!corked) {
      corked = true;
      stream.cork();
      setImmediate(flush);
    }
    return write.apply(this, args);
  } as S['write'];
  stream.destroy = function flushedDestroy(this: S, error?: Error) {
    corked = false;
    while (stream.writableCorked > 0) stream.uncork();
    destroy.call(this, error);
    return this;
  };
  return stream;
}

import type { Writable } from 'node:stream';

/**
 * Makes every write to a connection within one turn of the event loop leave in one socket write (issue 26 §1). aedes
 * writes each packet on its own (lib/write.js), and mqtt-packet corks only until the next tick, while aedes hands
 * deliveries on with a `setImmediate` each: a burst to one client cost one write (one syscall) per packet. Here the
 * first write of a turn corks the stream and a `setImmediate` uncorks it, so what the turn produced for this
 * connection goes out together (a socket's `writev`), in the order written, and nothing waits past the turn.
 * `end()` flushes anything still corked (Node's Writable).
 */
export function coalesceWrites<S extends Writable>(stream: S): S {
  const write = stream.write;
  let corked = false;
  const flush = () => {
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
  return stream;
}

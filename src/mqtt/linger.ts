import { Socket } from 'node:net';

/** How long a connection a shutdown closed may wait for its device to hang up before it is cut (docs/operations.md). */
export const SHUTDOWN_LINGER_MS = 1000;

/**
 * Makes the close aedes will do of a TCP or TLS connection (lib/client.js `close`: `destroy()`) a hang-up: what was
 * written goes, then a FIN; what the device still sends is read and dropped until it hangs up too (a conforming
 * client does at once), or `ms` pass. A shutdown stops reading before it acknowledges what it read (broker.ts `drain`):
 * the device's later packets sit unread, and a socket closed with unread input makes the kernel send RST and throw
 * away what it had not sent yet, the shutdown's last PUBACKs with it (a test caught 5 kept messages of 55 whose PUBACK
 * never came). A destroy with an error, and any stream but a socket (the WebSocket one), close as they would; other
 * destroys meanwhile (the listener's sweep of open connections) wait for the hang-up too.
 */
export function lingerOnDestroy(stream: unknown, ms: number): void {
  if (!(stream instanceof Socket) || stream.destroyed) return;
  const destroy = stream.destroy;
  let lingering = false;
  stream.destroy = function hangUp(this: Socket, error?: Error) {
    if (error || stream.destroyed) return destroy.call(this, error);
    // Once lingering, only the stream's own destroy once both sides are done (autoDestroy) ends it before the bound.
    if (lingering) return stream.readableEnded && stream.writableFinished ? destroy.call(this) : this;
    lingering = true;
    const cut = setTimeout(() => destroy.call(stream), ms);
    cut.unref();
    stream.once('close', () => clearTimeout(cut));
    stream.removeAllListeners('readable');
    stream.on('data', () => undefined);
    stream.resume();
    stream.end();
    return this;
  };
}

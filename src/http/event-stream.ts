import type { Context } from 'koa';

/** Defaults of a Server-Sent Events response, with their units. */
export const EVENT_STREAM_DEFAULTS = {
  /** A comment line this often keeps proxies and load balancers from closing an idle stream. */
  heartbeatMs: 15_000,
  /** The reconnection delay the browser is told to use (SSE `retry:` field). */
  retryMs: 3_000,
  /** Bytes a slow reader may leave unread before events are dropped instead of buffered without end. */
  maxBufferedBytes: 1024 * 1024,
} as const;

export interface EventStream {
  /** Sends one event; returns false when it was dropped because the client reads too slowly. */
  send(event: string, data: unknown): boolean;
  /** Ends the response; idempotent. */
  end(): void;
  /** Runs `fn` once when the client goes away or the stream ends (at once if that already happened). */
  onClose(fn: () => void): void;
}

/**
 * Makes the response a Server-Sent Events stream (WHATWG HTML §9.2, `text/event-stream`). Each event is
 * `id`, `event` and one `data` line of JSON (JSON.stringify never emits a newline, so one line always suffices).
 * Events that would overflow `maxBufferedBytes` are dropped and counted; the count goes out as a `dropped` event
 * once the client catches up, so a viewer knows it missed some.
 */
export function openEventStream(ctx: Context, options: Partial<typeof EVENT_STREAM_DEFAULTS> = {}): EventStream {
  const { heartbeatMs, retryMs, maxBufferedBytes } = { ...EVENT_STREAM_DEFAULTS, ...options };
  const res = ctx.res;
  ctx.status = 200;
  ctx.type = 'text/event-stream; charset=utf-8';
  // no-transform: a compressing proxy would hold events back until a block fills.
  ctx.set('Cache-Control', 'no-cache, no-transform');
  // nginx buffers proxied responses unless told not to.
  ctx.set('X-Accel-Buffering', 'no');
  // A stream's connection is not reused: when the service ends the stream (it is stopping), the socket closes with it
  // instead of idling in keep-alive and holding the HTTP server's close.
  ctx.set('Connection', 'close');
  // Written straight to the response, not as a body stream: Koa pipes a body stream and reports a client that
  // leaves before its end as an error (ERR_STREAM_PREMATURE_CLOSE), but leaving is how an event stream ends.
  ctx.respond = false;
  ctx.req.socket.setNoDelay(true);

  let closed = false;
  let dropped = 0;
  let nextId = 1;
  const closeListeners: (() => void)[] = [];

  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    for (const fn of closeListeners.splice(0)) fn();
  };
  // 'close' fires when the response is done or the connection dropped: either way no one reads any more.
  res.once('close', close);

  const write = (text: string) => {
    if (!closed && !res.writableEnded) res.write(text);
  };
  const heartbeat = setInterval(() => write(': keep-alive\n\n'), heartbeatMs);
  heartbeat.unref();
  // The first bytes also send the headers, so the client knows at once that the stream is open.
  write(`retry: ${retryMs}\n\n`);

  const frame = (event: string, data: unknown) => `id: ${nextId++}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

  return {
    send(event, data) {
      if (closed) return false;
      if (res.writableLength > maxBufferedBytes) {
        dropped++;
        return false;
      }
      if (dropped > 0) {
        write(frame('dropped', { count: dropped }));
        dropped = 0;
      }
      write(frame(event, data));
      return true;
    },
    end() {
      if (!res.writableEnded) res.end();
      close();
    },
    onClose(fn) {
      if (closed) fn();
      else closeListeners.push(fn);
    },
  };
}

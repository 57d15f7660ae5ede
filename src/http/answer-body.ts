import { Readable } from 'node:stream';
import type { Context, Next } from 'koa';
import { AppError } from '../core/errors';
import { PreparedAnswer } from '../timeseries/data-queries';
import { answerJson, QueryCancelledError } from '../timeseries/query';

/**
 * The HTTP side of a data-store answer (issue 10 §1). A small answer is sent as one string, as it always was; a
 * larger one is printed as the client reads it, so it never sits whole in memory, and keeps its caller's query slot
 * until it is sent. A client that reads nothing of it for `stallMs` is disconnected.
 */

/** Answers up to this size (at most) are printed at once and sent with a Content-Length. */
const STREAM_ABOVE_BYTES = 256 * 1024;

/**
 * Around a query route (data store, fleet query): a query whose client went away ends without an answer, 499 (nginx's
 * "client closed request", for the metrics); a refusal for want of a slot carries Retry-After in seconds (RFC 9110
 * §10.2.3), as the other 429s do.
 */
export async function queryRefusals(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
  } catch (err) {
    if (err instanceof QueryCancelledError) {
      ctx.status = 499;
      return;
    }
    if (err instanceof AppError && err.code === 'TOO_MANY_QUERIES') ctx.set('Retry-After', String(err.extra.retryAfter));
    throw err;
  }
}

/** A signal that aborts when the client goes away before its answer is sent: the query stops waiting or running. */
export function cancelledWhenGone(ctx: Context): AbortSignal {
  const gone = new AbortController();
  // The response's 'close' comes once it is sent or once the connection is lost; only the latter is a cancellation.
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) gone.abort(new QueryCancelledError());
  });
  return gone.signal;
}

/** Names the roll-up tier that answered (absent: raw points did); in a request, `off` forbids tiers. */
export const ROLLUP_HEADER = 'X-Openpie-Rollup';

export function sendAnswer(ctx: Context, prepared: PreparedAnswer, stallMs: number): void {
  ctx.type = 'application/json';
  if (prepared.rollup !== undefined) ctx.set(ROLLUP_HEADER, prepared.rollup);
  if (prepared.bytesAtMost <= STREAM_ABOVE_BYTES) {
    ctx.body = [...answerJson(prepared.answer)].join('');
    prepared.release();
    return;
  }
  const stream = answerStream(prepared, stallMs, () => ctx.req.socket.destroy());
  ctx.body = stream;
}

function answerStream(prepared: PreparedAnswer, stallMs: number, onStall: () => void): Readable {
  const chunks = answerJson(prepared.answer);
  let watchdog: NodeJS.Timeout | undefined;
  const stream = new Readable({
    highWaterMark: 64 * 1024,
    read() {
      watchdog?.refresh();
      for (;;) {
        const next = chunks.next();
        if (next.done) {
          this.push(null);
          return;
        }
        if (!this.push(next.value)) return;
      }
    },
  });
  watchdog = setTimeout(onStall, stallMs);
  watchdog.unref();
  stream.once('close', () => {
    clearTimeout(watchdog);
    prepared.release();
  });
  return stream;
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Middleware } from 'koa';
import { AppError } from '../core/errors';

/**
 * The deadline of a request body (issue 10 §3, HTTP_BODY_TIMEOUT_MS): counted from the end of the headers, it bounds
 * how long a client may take to send its body, so a body that trickles in (a "slowloris" body) cannot hold a
 * connection and its buffers. At the deadline, a body still arriving is cut off: a route still reading it answers
 * 408 REQUEST_TIMEOUT (body.ts races it against `ctx.state.bodyDeadline`), and the connection is closed after the
 * answer, or at once when the answer has gone already. Node's own headersTimeout bounds the headers before it.
 */
export function bodyDeadline(timeoutMs: number): Middleware {
  // Not async: a bodiless request passes through without a promise of its own.
  return (ctx, next) => {
    const deadline = armBodyDeadline(ctx.req, ctx.res, timeoutMs);
    if (deadline) ctx.state.bodyDeadline = deadline;
    return next();
  };
}

/**
 * Arms the deadline of `req`'s body (see bodyDeadline) and returns it: a promise that rejects with REQUEST_TIMEOUT once
 * it passes; undefined when the body is complete already (bodiless requests are complete as soon as their headers are).
 */
export function armBodyDeadline(req: IncomingMessage, res: ServerResponse, timeoutMs: number): Promise<never> | undefined {
  if (req.complete) return undefined;
  let expire: (err: AppError) => void = () => undefined;
  const expired = new Promise<never>((_, reject) => (expire = reject));
  // Routes that never read their body never look at it.
  expired.catch(() => undefined);
  const timer = setTimeout(() => {
    if (req.complete) return;
    if (res.headersSent) {
      req.socket.destroy();
      return;
    }
    // The rest of the body would be read and thrown away before a next request: close instead.
    res.setHeader('Connection', 'close');
    res.once('finish', () => req.socket.destroySoon());
    expire(new AppError('REQUEST_TIMEOUT', `the request body did not arrive within ${timeoutMs} ms (HTTP_BODY_TIMEOUT_MS)`));
  }, timeoutMs);
  timer.unref();
  res.once('close', () => {
    if (req.complete) clearTimeout(timer);
  });
  return expired;
}

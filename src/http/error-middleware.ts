import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import { AppError, errorBodyOf } from '../core/errors';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** A request's id: the client's X-Request-Id when it is sane, else a new one. */
export const requestIdOf = (given: string | undefined): string => (given !== undefined && REQUEST_ID.test(given) ? given : randomUUID());

/** The request's logger: every line it writes carries the request's id. Made on first use: most requests log nothing. */
export const requestLog = (ctx: Context): Logger =>
  (ctx.state.log ??= (ctx.state.serviceLog as Logger).child({ requestId: ctx.state.requestId as string })) as Logger;

/**
 * The one error handler: AppErrors become `{status, code, message, ...}` with their status; anything else is a 500
 * with a generic body and one log line. Also gives every request an id (taken from X-Request-Id when sane) and a
 * logger carrying it (see requestLog), and logs each request once, at the end, at debug level.
 */
export function errorMiddleware(logger: Logger): Middleware {
  return async (ctx, next) => {
    const requestId = requestIdOf(ctx.get('x-request-id'));
    ctx.state.requestId = requestId;
    ctx.state.serviceLog = logger;
    ctx.set('X-Request-Id', requestId);
    const started = performance.now();
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new AppError('ROUTE_NOT_FOUND', `no route for ${ctx.method} ${ctx.path}`);
      }
    } catch (err) {
      const body = errorBodyOf(err, (internal) => requestLog(ctx).error({ err: internal, method: ctx.method, path: ctx.path }, 'request failed'));
      // The data-store API speaks KairosDB, whose clients read `{"errors": [...]}` (kairosdb reference §1).
      if (ctx.state.kairosErrors && !Array.isArray(body.errors)) body.errors = [body.message];
      ctx.status = body.status;
      ctx.body = { ...body, requestId };
    }
    if (logger.isLevelEnabled('debug')) {
      requestLog(ctx).debug({ method: ctx.method, path: ctx.path, status: ctx.status, ms: performance.now() - started }, 'request');
    }
  };
}

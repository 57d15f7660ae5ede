import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import { AppError, internalErrorBody, toErrorBody } from '../errors';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The request's logger: every line it writes carries the request's id. */
export const requestLog = (ctx: Context): Logger => ctx.state.log as Logger;

/**
 * The one error handler: AppErrors become `{status, code, message, ...}` with their status; anything else is a 500
 * with a generic body and one log line. Also gives every request an id (taken from X-Request-Id when sane) and a
 * child logger carrying it (`ctx.state.log`, see requestLog), and logs each request once, at the end.
 */
export function errorMiddleware(logger: Logger): Middleware {
  return async (ctx, next) => {
    const given = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = requestId;
    const log = logger.child({ requestId });
    ctx.state.log = log;
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new AppError('ROUTE_NOT_FOUND', `no route for ${ctx.method} ${ctx.path}`);
      }
    } catch (err) {
      const body = err instanceof AppError ? toErrorBody(err) : internalErrorBody();
      if (!(err instanceof AppError)) log.error({ err, method: ctx.method, path: ctx.path }, 'request failed');
      // The data-store API speaks KairosDB, whose clients read `{"errors": [...]}` (kairosdb reference §1).
      if (ctx.state.kairosErrors && !Array.isArray(body.errors)) body.errors = [body.message];
      ctx.status = body.status;
      ctx.body = { ...body, requestId };
    }
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    log.debug({ method: ctx.method, path: ctx.path, status: ctx.status, ms }, 'request');
  };
}

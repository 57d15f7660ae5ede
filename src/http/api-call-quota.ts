import type { Context, Middleware } from 'koa';
import { AppError } from '../core/errors';
import { ApiCallMeter } from '../quotas/api-call-meter';
import { callerOf } from './device-auth';

/** Bytes of a reply body as it will be sent; a stream counts as nothing (one block, the minimum). */
export function replyBytes(body: unknown): number {
  if (body === undefined || body === null) return 0;
  if (typeof body === 'string') return Buffer.byteLength(body);
  if (Buffer.isBuffer(body)) return body.length;
  if (typeof (body as { pipe?: unknown }).pipe === 'function') return 0;
  return Buffer.byteLength(JSON.stringify(body));
}

/**
 * Bytes of the reply as it will be sent. A JSON body is serialized here, once, and left as its text (with its JSON
 * content type), so that Koa sends these very bytes instead of serializing it a second time.
 */
function serializedReplyBytes(ctx: Context): number {
  const body: unknown = ctx.body;
  const isJson = body !== null && typeof body === 'object' && (Array.isArray(body) || Object.getPrototypeOf(body) === Object.prototype);
  if (!isJson) return replyBytes(body);
  const text = JSON.stringify(body);
  ctx.body = text;
  return Buffer.byteLength(text);
}

/** Sets `Retry-After` on a refusal by a quota, as on a refusal by the rate limit (RFC 9110 §10.2.3). */
export function withRetryAfter(ctx: Context, err: unknown): unknown {
  if (err instanceof AppError && err.code === 'QUOTA_EXCEEDED') ctx.set('Retry-After', String(err.extra.retryAfter));
  return err;
}

/**
 * Meters each call of the calling device's project (quotas/api-call-meter.ts). Also gives every quota refusal of
 * the call (a shadow quota, say) its Retry-After. An error's body is written later, by the error middleware.
 */
export function apiCallQuota(meter: ApiCallMeter): Middleware {
  return async (ctx, next) => {
    try {
      await meter.metered(callerOf(ctx).projectid, Number(ctx.get('content-length')) || 0, next, () => serializedReplyBytes(ctx));
    } catch (err) {
      throw withRetryAfter(ctx, err);
    }
  };
}

import type { Context, Middleware } from 'koa';
import { AppError } from '../errors';
import { QuotaGate } from '../quotas/port';
import { blocksOf, MESSAGE_BLOCK } from '../quotas/quota';
import { callerOf } from './device-auth';

/** Bytes of a reply body as it will be sent; a stream counts as nothing (one block, the minimum). */
export function replyBytes(body: unknown): number {
  if (body === undefined || body === null) return 0;
  if (typeof body === 'string') return Buffer.byteLength(body);
  if (Buffer.isBuffer(body)) return body.length;
  if (typeof (body as { pipe?: unknown }).pipe === 'function') return 0;
  return Buffer.byteLength(JSON.stringify(body));
}

/** Sets `Retry-After` on a refusal by a quota, as on a refusal by the rate limit (RFC 9110 §10.2.3). */
export function withRetryAfter(ctx: Context, err: unknown): unknown {
  if (err instanceof AppError && err.code === 'QUOTA_EXCEEDED') ctx.set('Retry-After', String(err.extra.retryAfter));
  return err;
}

/**
 * Meters the calling device's project (netpie reference §9, API calls): the request, 1 per started 4 KiB, is
 * charged before the call and refused with 429 QUOTA_EXCEEDED when the quota is spent; the reply, 1 per started
 * 4 KiB, is charged after it. Also gives every quota refusal of the call (a shadow quota, say) its Retry-After.
 */
export function apiCallQuota(quotas: QuotaGate, now: () => number): Middleware {
  return async (ctx, next) => {
    const { projectid } = callerOf(ctx);
    let replied = false;
    try {
      await quotas.spend(projectid, { apiCalls: blocksOf(Number(ctx.get('content-length')) || 0, MESSAGE_BLOCK) }, now());
      replied = true;
      await next();
    } catch (err) {
      throw withRetryAfter(ctx, err);
    } finally {
      // An error's body is written later, by the error middleware: it counts as one block.
      if (replied) quotas.record(projectid, { apiCalls: blocksOf(replyBytes(ctx.body), MESSAGE_BLOCK) }, now());
    }
  };
}

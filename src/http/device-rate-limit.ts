import type { Middleware } from 'koa';
import { AppError } from '../core/errors';
import { ServiceMetrics } from '../metrics/service-metrics';
import { KeyedRateLimiter } from '../ratelimit/keyed-rate-limiter';
import { callerOf } from './device-auth';

/**
 * The calling device's rate limit (RATE_LIMIT_RPS, RATE_LIMIT_BURST), after deviceAuth: one bucket per device, so a
 * device that floods the API is refused while the others go on. 429 with Retry-After in seconds (RFC 9110 §10.2.3).
 */
export function deviceRateLimit(limiter: KeyedRateLimiter, metrics: Pick<ServiceMetrics, 'countRateLimitRefusal'>): Middleware {
  // Not async: an allowed call passes through without a promise of its own (a refusal throws; its caller awaits).
  return (ctx, next) => {
    const decision = limiter.take(callerOf(ctx).deviceid);
    if (!decision.allowed) {
      metrics.countRateLimitRefusal('http');
      ctx.set('Retry-After', String(decision.retryAfterSeconds));
      const { ratePerSecond, burst } = limiter.limits;
      throw new AppError(
        'RATE_LIMITED',
        `this device is over its limit of ${ratePerSecond} requests per second (bursts of ${burst}); retry after ${decision.retryAfterSeconds} s`,
        { retryAfter: decision.retryAfterSeconds },
      );
    }
    return next();
  };
}

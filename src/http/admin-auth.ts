import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { secretsEqual } from '../devices/credentials';
import { AppError } from '../core/errors';
import { ServiceMetrics } from '../metrics/service-metrics';
import { Caller } from '../operators/access';
import { Operators } from '../operators/service';
import { FailureThrottle } from '../ratelimit/failure-throttle';

export interface AdminDoor {
  adminToken: string;
  /** Operator keys (issue 20 §5), besides the bootstrap ADMIN_TOKEN. */
  operators: Pick<Operators, 'nameIn' | 'authenticate'>;
  /** The same failure counts as the device doors (ratelimit/failure-throttle.ts), the target being `admin`. */
  failures: FailureThrottle;
  metrics: Pick<ServiceMetrics, 'countAuthFailure'>;
  logger: Logger;
}

const TARGET = 'admin';
/** The throttle's target for an operator key: one per operator, apart from devices' ids. */
const operatorTarget = (name: string) => `operator:${name}`;

/**
 * `Authorization: Bearer <ADMIN_TOKEN | operator key>`: the admin API and the console's log-in (which calls it). The
 * token is compared in constant time, a key against its kept digest (operators/service.ts); the caller goes into
 * `ctx.state.caller` (operators/access.ts). Failures count per address and target: `admin` for the token, each
 * operator for its keys (a key names its operator). An address that failed too often is refused with 429 TOO_MANY_FAILURES and `Retry-After` before the
 * token is compared; each failure is counted and logged with the address, never the token.
 */
export function adminAuth({ adminToken, operators, failures, metrics, logger }: AdminDoor): Middleware {
  return async (ctx, next) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
    if (!match) throw new AppError('MISSING_CREDENTIALS', 'send Authorization: Bearer <ADMIN_TOKEN>');
    const operator = operators.nameIn(match[1]);
    const target = operator === undefined ? TARGET : operatorTarget(operator);
    const throttled = failures.check(ctx.ip, target);
    if (throttled) {
      metrics.countAuthFailure('admin', 'throttled');
      logger.info({ door: 'admin', source: ctx.ip, why: throttled.why }, 'credential check refused: too many failures');
      ctx.set('Retry-After', String(throttled.retryAfterSeconds));
      throw new AppError('TOO_MANY_FAILURES', `too many failed credential checks from this address; retry after ${throttled.retryAfterSeconds} s`, {
        retryAfter: throttled.retryAfterSeconds,
      });
    }
    const caller: Caller | undefined = secretsEqual(match[1], adminToken)
      ? { kind: 'bootstrap' }
      : await operators.authenticate(match[1]);
    if (!caller) {
      failures.failed(ctx.ip, target);
      metrics.countAuthFailure('admin', 'invalid_credentials');
      logger.info({ door: 'admin', source: ctx.ip, operator }, `credential check failed: wrong ${operator === undefined ? 'admin token' : 'operator key'}`);
      throw new AppError('INVALID_CREDENTIALS', operator === undefined ? 'wrong admin token' : 'wrong or revoked operator key');
    }
    ctx.state.caller = caller;
    await next();
  };
}

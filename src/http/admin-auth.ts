import type { Middleware } from 'koa';
import { secretsEqual } from '../devices/credentials';
import { AppError } from '../core/errors';

/** `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time. */
export function adminAuth(adminToken: string): Middleware {
  return async (ctx, next) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
    if (!match) throw new AppError('MISSING_CREDENTIALS', 'send Authorization: Bearer <ADMIN_TOKEN>');
    if (!secretsEqual(match[1], adminToken)) throw new AppError('INVALID_CREDENTIALS', 'wrong admin token');
    await next();
  };
}

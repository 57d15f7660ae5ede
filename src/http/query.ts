import type { Context } from 'koa';
import { AppError } from '../core/errors';

/** One query parameter, given at most once; `?alias=a&alias=b` is a 400, not a guess. */
export function singleQuery(ctx: Context, name: string): string | undefined {
  const value = ctx.query[name];
  if (Array.isArray(value)) throw new AppError('INVALID_QUERY', `query parameter "${name}" given more than once`);
  return value;
}

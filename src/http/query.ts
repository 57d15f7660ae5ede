import type { ParsedUrlQuery } from 'node:querystring';
import type { Context } from 'koa';
import { AppError } from '../core/errors';

/** One query parameter, given at most once; `?alias=a&alias=b` is a 400, not a guess. */
export const singleQuery = (ctx: Context, name: string): string | undefined => singleValue(ctx.query, name);

/** The same rule over a parsed query string (node:querystring's `parse`, as Koa's `ctx.query`). */
export function singleValue(query: ParsedUrlQuery, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) throw new AppError('INVALID_QUERY', `query parameter "${name}" given more than once`);
  return value;
}

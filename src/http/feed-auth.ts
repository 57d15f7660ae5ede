import type { Context, Middleware } from 'koa';
import { AppError } from '../core/errors';
import { DataCredentials, DataScope } from '../timeseries/scope';
import { parseDeviceCredentials } from './device-auth';

/** A user token is a JWT: three base64url parts. */
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

const HINT = 'send Authorization: Bearer <user token>, Device <ClientID>:<token>, or Basic with either';

/**
 * The credentials of a data-store call: `Authorization: Bearer <user token | ADMIN_TOKEN>`, `Device <ClientID>:<token>`
 * (spec 5), or Basic carrying either (Grafana's data sources send Basic: username = ClientID and password = token, or
 * any username and a user token as the password).
 */
export function feedCredentialsOf(header: string): DataCredentials {
  if (header === '') throw new AppError('MISSING_CREDENTIALS', HINT);
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (bearer) return { kind: 'token', token: bearer[1] };
  const creds = parseDeviceCredentials(header);
  if (!creds) throw new AppError('INVALID_CREDENTIALS', `malformed Authorization header: ${HINT}`);
  if (/^Basic\s/i.test(header) && JWT.test(creds.token)) return { kind: 'token', token: creds.token };
  return { kind: 'device', deviceid: creds.deviceid, token: creds.token };
}

/** The caller's scope (timeseries/scope.ts decides it) into `ctx.state.feedScope`. */
export function feedAuth(identify: (credentials: DataCredentials, source: string) => Promise<DataScope>): Middleware {
  return async (ctx, next) => {
    try {
      ctx.state.feedScope = await identify(feedCredentialsOf(ctx.get('authorization')), ctx.ip);
    } catch (err) {
      if (err instanceof AppError && typeof err.extra.retryAfter === 'number') ctx.set('Retry-After', String(err.extra.retryAfter));
      throw err;
    }
    await next();
  };
}

export const feedScopeOf = (ctx: Context): DataScope => ctx.state.feedScope as DataScope;

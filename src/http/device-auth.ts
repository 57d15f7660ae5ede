import type { Context, Middleware } from 'koa';
import { Admission } from '../devices/admission';
import { Device } from '../devices/device';
import { AppError } from '../core/errors';

/** `Device <ClientID>:<token>` (spec 5) or `Basic base64(<ClientID>:<token>)` (netpie reference §5.1). */
export function parseDeviceCredentials(header: string): { deviceid: string; token: string } | undefined {
  const match = /^(Device|Basic)\s+(\S+)\s*$/i.exec(header);
  if (!match) return undefined;
  const pair = match[1].toLowerCase() === 'basic' ? Buffer.from(match[2], 'base64').toString('utf8') : match[2];
  const colon = pair.indexOf(':');
  if (colon <= 0) return undefined;
  return { deviceid: pair.slice(0, colon), token: pair.slice(colon + 1) };
}

/** The credentials of an Authorization header; MISSING_CREDENTIALS or INVALID_CREDENTIALS when it has none. */
export function credentialsOf(header: string | undefined): { deviceid: string; token: string } {
  if (header === undefined || header === '') throw new AppError('MISSING_CREDENTIALS', 'send Authorization: Device <ClientID>:<token>');
  const credentials = parseDeviceCredentials(header);
  if (!credentials) throw new AppError('INVALID_CREDENTIALS', 'expected Authorization: Device <ClientID>:<token>');
  return credentials;
}

/**
 * The Device API's door (devices/admission.ts): the caller's credentials from `Authorization`, admitted into
 * `ctx.state.device`, then the call metered. HTTP only translates: a refusal with `retryAfter` (the rate limit, a
 * quota) gets its `Retry-After` in seconds (RFC 9110 §10.2.3); the error middleware writes the body.
 */
export function admitDevice(admission: Admission): Middleware {
  return async (ctx, next) => {
    const credentials = credentialsOf(ctx.get('authorization'));
    try {
      const caller = await admission.call('http', ctx.ip, credentials);
      ctx.state.device = caller;
      await admission.metered(caller, Number(ctx.get('content-length')) || 0, next, () => serializedReplyBytes(ctx));
    } catch (err) {
      if (err instanceof AppError && typeof err.extra.retryAfter === 'number') ctx.set('Retry-After', String(err.extra.retryAfter));
      throw err;
    }
  };
}

export const callerOf = (ctx: Context): Device => ctx.state.device as Device;

/**
 * Bytes of the reply as it will be sent, for the API-call quota. A JSON body is serialized here, once, and left as
 * its text (with its JSON content type), so that Koa sends these very bytes instead of serializing it a second time; a
 * stream counts as nothing (one block, the minimum).
 */
function serializedReplyBytes(ctx: Context): number {
  const body: unknown = ctx.body;
  if (body === undefined || body === null) return 0;
  if (typeof body === 'string') return Buffer.byteLength(body);
  if (Buffer.isBuffer(body)) return body.length;
  if (typeof (body as { pipe?: unknown }).pipe === 'function') return 0;
  const text = JSON.stringify(body);
  ctx.body = text;
  return Buffer.byteLength(text);
}

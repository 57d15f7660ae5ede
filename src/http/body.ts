import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { AppError } from '../core/errors';
import { parseJson } from '../core/json';

/**
 * Bytes of an admin API request body (docs/limits-and-errors.md "Limits"); larger bodies get 413 PAYLOAD_TOO_LARGE.
 * The limits of device-facing bodies live with their features (shadows/limits.ts, timeseries/limits.ts).
 */
export const ADMIN_BODY_LIMIT = 16 * 1024;

async function readRaw(ctx: Context, limit: number): Promise<Buffer> {
  const read = getRawBody(ctx.req, { limit, length: ctx.get('content-length') || undefined });
  // The body's deadline (body-deadline.ts): REQUEST_TIMEOUT once it passes.
  const deadline = ctx.state.bodyDeadline as Promise<never> | undefined;
  try {
    return await (deadline === undefined ? read : Promise.race([read, deadline]));
  } catch (err) {
    const type = (err as { type?: string }).type;
    if (type === 'entity.too.large') throw new AppError('PAYLOAD_TOO_LARGE', `body is larger than ${limit} bytes`);
    if (type === 'request.size.invalid') throw new AppError('INVALID_BODY', 'body length does not match Content-Length');
    if (type === 'request.aborted') throw new AppError('INVALID_BODY', 'request aborted by the client');
    throw err;
  }
}

/** `curl -d` sends a form type unless told otherwise: the commonest 415, so the message says how to fix it. */
const describeType = (type: string) => (type === 'application/x-www-form-urlencoded' ? `${type} (what curl -d sends)` : type);

const JSON_TYPES = ['application/json', 'text/plain'];

/**
 * Reads a JSON body; `lenient` also takes single quotes, unquoted keys and comments (KairosDB's Gson reads query
 * bodies so, reference §1). Accepts `application/json` (and `+json` types), `text/plain` (some NETPIE clients send it) or no
 * Content-Type; anything else, such as curl's default form encoding, is 415 with a hint.
 */
export async function readJson(ctx: Context, limit: number, syntax: 'strict' | 'lenient' = 'strict'): Promise<unknown> {
  const type = ctx.request.type;
  if (type !== '' && !JSON_TYPES.includes(type) && !type.endsWith('+json')) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `got Content-Type: ${describeType(type)}; ` +
      "accepted: application/json (or a +json type), text/plain, or none: add -H 'Content-Type: application/json'");
  }
  return parseJson(await readRaw(ctx, limit), syntax);
}

const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data'];

/** Reads a message body as bytes (spec 2.3: text/plain); form encodings are refused since they would mangle it. */
export async function readMessage(ctx: Context, limit: number): Promise<Buffer> {
  if (FORM_TYPES.includes(ctx.request.type)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `got Content-Type: ${describeType(ctx.request.type)}, which would mangle the ` +
      `message; accepted: text/plain, or any type but ${FORM_TYPES.join(' and ')}: add -H 'Content-Type: text/plain'`);
  }
  return readRaw(ctx, limit);
}

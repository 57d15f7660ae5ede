import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { AppError } from '../core/errors';
import { parseJson } from '../core/json';

/**
 * Bytes of an admin API request body (docs/limits-and-errors.md "Limits"); larger bodies get 413 PAYLOAD_TOO_LARGE.
 * The limits of device-facing bodies live with their features (shadows/limits.ts, timeseries/limits.ts).
 */
export const ADMIN_BODY_LIMIT = 16 * 1024;

/** The body's bytes, whatever its type (a caller that reads a type of its own, such as CSV, checks the type itself). */
export const readRaw = (ctx: Context, limit: number): Promise<Buffer> =>
  // The body's deadline (body-deadline.ts): REQUEST_TIMEOUT once it passes.
  readBody(ctx.req, limit, ctx.state.bodyDeadline as Promise<never> | undefined);

/** The bytes of `req`'s body, at most `limit`, raced against its `deadline` (body-deadline.ts) when it has one. */
export async function readBody(req: IncomingMessage, limit: number, deadline: Promise<never> | undefined): Promise<Buffer> {
  const read = getRawBody(req, { limit, length: req.headers['content-length'] || undefined });
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

/**
 * `curl -d` and axios send `application/x-www-form-urlencoded` unless told otherwise, with the body as written: JSON
 * sent so is read as JSON (docs/device-api.md "Request bodies"), and a body that is not JSON says why.
 */
const FORM = 'application/x-www-form-urlencoded';

const JSON_TYPES = ['application/json', 'text/plain', FORM];

/**
 * Reads a JSON body; `lenient` also takes single quotes, unquoted keys and comments (KairosDB's Gson reads query
 * bodies so, reference §1). Accepts `application/json` (and `+json` types), `text/plain` (some NETPIE clients send it),
 * the form type of `curl -d`, or no Content-Type; anything else is 415.
 */
export async function readJson(ctx: Context, limit: number, syntax: 'strict' | 'lenient' = 'strict'): Promise<unknown> {
  const type = ctx.request.type;
  if (type !== '' && !JSON_TYPES.includes(type) && !type.endsWith('+json')) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `got Content-Type: ${type}; ` +
      "accepted: application/json (or a +json type), text/plain, or none: add -H 'Content-Type: application/json'");
  }
  const raw = await readRaw(ctx, limit);
  try {
    return parseJson(raw, syntax);
  } catch (err) {
    if (type !== FORM || !(err instanceof AppError)) throw err;
    throw new AppError(err.code, `${err.message} (sent as ${FORM}, as curl -d does; form fields are not read: send JSON)`);
  }
}

/**
 * Reads a message body as the bytes sent, whatever the type says (docs/device-api.md "Message bodies"): text of any
 * `text/*` type, JSON, octet-stream, none, and `application/x-www-form-urlencoded`, which curl -d and axios send by
 * default with the raw text as the body. Only a multipart body is refused: it is an envelope of parts, not a message.
 */
export async function readMessage(req: IncomingMessage, limit: number, deadline: Promise<never> | undefined): Promise<Buffer> {
  const type = mediaTypeOf(req.headers['content-type']);
  if (type.startsWith('multipart/')) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `got Content-Type: ${type}, an envelope of parts, not a message; ` +
      "send the message itself as the body (any other type, e.g. -H 'Content-Type: text/plain')");
  }
  return readBody(req, limit, deadline);
}

/** The media type of a Content-Type header without its parameters, as Koa's `ctx.request.type` gives it. */
export const mediaTypeOf = (header: string | undefined): string => (header ? header.split(';')[0] : '');

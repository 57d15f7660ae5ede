import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { AppError } from '../errors';
import { parseJson } from '../json';

/** Request body limits in bytes, named in the README ("Limits"). Larger bodies get 413 PAYLOAD_TOO_LARGE. */
export const BODY_LIMITS = {
  shadowWrite: 256 * 1024,
  batch: 1024 * 1024,
  admin: 16 * 1024,
  query: 1024 * 1024,
} as const;

async function readRaw(ctx: Context, limit: number): Promise<Buffer> {
  try {
    return await getRawBody(ctx.req, { limit, length: ctx.get('content-length') || undefined });
  } catch (err) {
    const type = (err as { type?: string }).type;
    if (type === 'entity.too.large') throw new AppError('PAYLOAD_TOO_LARGE', `body is larger than ${limit} bytes`);
    if (type === 'request.size.invalid') throw new AppError('INVALID_BODY', 'body length does not match Content-Length');
    if (type === 'request.aborted') throw new AppError('INVALID_BODY', 'request aborted by the client');
    throw err;
  }
}

const JSON_TYPES = ['application/json', 'text/plain'];

/**
 * Reads a JSON body; `lenient` also takes single quotes, unquoted keys and comments (KairosDB's Gson reads query
 * bodies so, reference §1). Accepts `application/json` (and `+json` types), `text/plain` (some NETPIE clients send it) or no
 * Content-Type; anything else, such as curl's default form encoding, is 415 with a hint.
 */
export async function readJson(ctx: Context, limit: number, syntax: 'strict' | 'lenient' = 'strict'): Promise<unknown> {
  const type = ctx.request.type;
  if (type !== '' && !JSON_TYPES.includes(type) && !type.endsWith('+json')) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `expected Content-Type: application/json, got ${type}`);
  }
  return parseJson(await readRaw(ctx, limit), syntax);
}

const FORM_TYPES = ['multipart/form-data', 'application/x-www-form-urlencoded'];

/** Reads a message body as bytes (spec 2.3: text/plain); form encodings are refused since they would mangle it. */
export async function readMessage(ctx: Context, limit: number): Promise<Buffer> {
  if (FORM_TYPES.includes(ctx.request.type)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `expected Content-Type: text/plain, got ${ctx.request.type}`);
  }
  return readRaw(ctx, limit);
}

import { Device } from '../devices/device';
import { AppError } from '../core/errors';
import { RevCondition } from '../shadows/condition';
import { SuccessCode } from './codes';

/** What a CoAP route handler gets: the authenticated caller and the request, already taken apart. */
export interface CoapCall {
  caller: Device;
  /** The path segments after the route's own, e.g. the topic levels of `/message/{any}/{topic}`. */
  rest: string[];
  query: ReadonlyMap<string, string>;
  /** The whole payload, reassembled from Block1 transfers by node-coap. */
  payload: Buffer;
  /** The Content-Format option as node-coap names it (`application/json`), a number when unregistered, or absent. */
  contentFormat: string | number | undefined;
  /** The If-Match / If-None-Match options (shadow-conditions.ts); absent without either. */
  revCondition?: RevCondition;
}

/** A success: the code and the JSON body. Errors are thrown as AppErrors. */
export interface CoapReply {
  code: SuccessCode;
  body: unknown;
  /** The ETag option of the reply: the shadow's revision (shadow-conditions.ts). */
  etag?: Buffer;
}

export type CoapHandler = (call: CoapCall) => Promise<CoapReply>;

export interface CoapRoute {
  /** The leading segments, e.g. `['shadow', 'data']`. */
  path: readonly string[];
  /** True when more segments may follow; they become `rest`. */
  open: boolean;
  /** The largest payload the route reads; uploads beyond it are refused with 4.13, even mid-transfer. */
  maxPayloadBytes: number;
  methods: Partial<Record<string, CoapHandler>>;
}

export interface RouteMatch {
  route: CoapRoute;
  rest: string[];
}

interface RawOption {
  name: string | number;
  value: unknown;
}

const text = (value: unknown): string => (Buffer.isBuffer(value) ? value.toString('utf8') : String(value));

/**
 * The Uri-Path and Uri-Query options one by one. Each option is one segment or one argument, not percent-encoded
 * (RFC 7252 §6.5); node-coap's `req.url` joins them with `/` and `&`, which loses segments holding those characters.
 */
export function requestTarget(options: readonly RawOption[]): { segments: string[]; queries: string[] } {
  const segments: string[] = [];
  const queries: string[] = [];
  for (const option of options) {
    if (option.name === 'Uri-Path') segments.push(text(option.value));
    else if (option.name === 'Uri-Query') queries.push(text(option.value));
  }
  return { segments, queries };
}

/** `name=value` arguments; a name given twice is a 4.00, as `?alias=a&alias=b` is on REST. */
export function parseQuery(queries: readonly string[]): Map<string, string> {
  const query = new Map<string, string>();
  for (const argument of queries) {
    const eq = argument.indexOf('=');
    const name = eq < 0 ? argument : argument.slice(0, eq);
    if (query.has(name)) throw new AppError('INVALID_QUERY', `query parameter "${name}" given more than once`);
    query.set(name, eq < 0 ? '' : argument.slice(eq + 1));
  }
  return query;
}

/** `?auth=<ClientID>:<token>` (netpie reference §4); the token may itself hold colons. */
export function credentialsOf(query: ReadonlyMap<string, string>): { deviceid: string; token: string } {
  const auth = query.get('auth');
  if (auth === undefined) throw new AppError('MISSING_CREDENTIALS', 'add ?auth=<ClientID>:<token> to the URI');
  const colon = auth.indexOf(':');
  if (colon <= 0) throw new AppError('INVALID_CREDENTIALS', 'expected ?auth=<ClientID>:<token>');
  return { deviceid: auth.slice(0, colon), token: auth.slice(colon + 1) };
}

export function matchRoute(routes: readonly CoapRoute[], segments: readonly string[]): RouteMatch | undefined {
  for (const route of routes) {
    const fixed = segments.slice(0, route.path.length);
    if (fixed.length !== route.path.length || fixed.some((s, i) => s !== route.path[i])) continue;
    const rest = segments.slice(route.path.length);
    if (rest.length === 0 || route.open) return { route, rest };
  }
  return undefined;
}

/** The handler of a matched route for a method; `method` is undefined for codes node-coap does not name. */
export function handlerOf(route: CoapRoute, method: string | undefined): CoapHandler {
  const handler = method !== undefined && Object.hasOwn(route.methods, method) ? route.methods[method] : undefined;
  if (!handler) {
    throw new AppError('METHOD_NOT_ALLOWED', `method not allowed on this path; use ${Object.keys(route.methods).join(', ')}`);
  }
  return handler;
}

// @ts-check
/**
 * The console's calls to the service: the admin API with the admin token, and the data-store API with a user token
 * issued for the device's project (POST /v2/admin/tokens). The admin token lives in sessionStorage: it is gone when
 * the tab closes, and other sites cannot read it.
 */

const TOKEN_KEY = 'openpie.adminToken';

/** A refused call: the service's error body (`{status, code, message}`), or the network's failure. */
export class ApiError extends Error {
  /**
   * @param {number} status HTTP status; 0 when the service could not be reached
   * @param {string} code the stable code of the error body, e.g. DEVICE_NOT_FOUND
   * @param {string} message
   * @param {any} [body] the whole error body, e.g. an import's `rowErrors`
   */
  constructor(status, code, message, body) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.body = body;
  }
}

export const adminToken = () => sessionStorage.getItem(TOKEN_KEY);
export const saveAdminToken = (/** @type {string} */ token) => sessionStorage.setItem(TOKEN_KEY, token);
export function forgetAdminToken() {
  sessionStorage.removeItem(TOKEN_KEY);
  userTokens.clear();
}

/** @type {Set<() => void>} */
const unauthorizedListeners = new Set();
/** Runs `fn` whenever the admin token is refused (rotated, or the service was restarted with another one). */
export const onUnauthorized = (/** @type {() => void} */ fn) => unauthorizedListeners.add(fn);
/** Tells the listeners that the service refused the admin token. */
export function tokenRefused() {
  for (const fn of unauthorizedListeners) fn();
}

/**
 * @typedef {object} CallOptions
 * @property {unknown} [body] sent as JSON
 * @property {{type: string, text: string}} [raw] sent as it is, with its type (an import file)
 * @property {string | null} [token] a bearer token
 * @property {AbortSignal} [signal]
 */

/**
 * @param {string} method
 * @param {string} path
 * @param {CallOptions} [options]
 * @returns {Promise<any>} the parsed JSON body, or undefined for an empty one
 */
async function call(method, path, { body, raw, token, signal } = {}) {
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const sent = raw ?? (body === undefined ? undefined : { type: 'application/json', text: JSON.stringify(body) });
  if (sent) headers['content-type'] = sent.type;
  let res;
  try {
    res = await fetch(path, { method, headers, body: sent?.text, signal, cache: 'no-store' });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new ApiError(0, 'UNREACHABLE', 'the service cannot be reached');
  }
  const text = await res.text();
  /** @type {any} */
  let json;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (!res.ok) throw new ApiError(res.status, json?.code ?? `HTTP_${res.status}`, json?.message ?? res.statusText, json);
  return json;
}

/**
 * A call to the admin API with the admin token.
 * @param {string} method
 * @param {string} path
 * @param {Omit<CallOptions, 'token'>} [options]
 */
export const admin = (method, path, options = {}) => call(method, path, { ...options, token: adminToken() });

/** Checks a token before it is kept: refused with an ApiError (401) when it is wrong. */
export async function checkAdminToken(/** @type {string} */ token) {
  await call('GET', '/v2/admin/service', { token });
}

/** Tokens of the data-store API by project, each used until a minute before it expires. */
/** @type {Map<string, {token: string, expires: number}>} */
const userTokens = new Map();
const USER_TOKEN_TTL_S = 3600;

/** @param {string} projectid */
async function userTokenFor(projectid) {
  const cached = userTokens.get(projectid);
  if (cached && cached.expires - Date.now() > 60_000) return cached.token;
  const issued = await admin('POST', '/v2/admin/tokens', { body: { projectid, ttl: USER_TOKEN_TTL_S } });
  userTokens.set(projectid, issued);
  return /** @type {string} */ (issued.token);
}

/**
 * A data-store call (KairosDB format) with the project's user token.
 * @param {string} projectid
 * @param {'/datapoints/query' | '/datapoints/query/tags'} path
 * @param {unknown} query
 * @param {AbortSignal} [signal]
 */
export async function feed(projectid, path, query, signal) {
  return call('POST', `/v2/feed/api/v1${path}`, { body: query, token: await userTokenFor(projectid), signal });
}

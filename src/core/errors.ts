/**
 * The one error catalogue of the service: every error a client can see has a stable code, and its HTTP status
 * lives here and nowhere else. Anything that is not an AppError becomes INTERNAL (500, generic message).
 */
export const ERROR_STATUS = {
  INVALID_JSON: 400,
  INVALID_BODY: 400,
  INVALID_QUERY: 400,
  /** A KairosDB-format query the embedded engine refuses; the body is KairosDB's `{"errors":[...]}` (reference §1). */
  KAIROS_QUERY_INVALID: 400,
  /** A data-store query names a device by a bare alias that several devices the caller may read share. */
  METRIC_AMBIGUOUS: 400,
  /** A js_function / js_filter / js_range script that failed, timed out or returned a non-number (reference §6.5). */
  SCRIPT_ERROR: 400,
  /** The script sandbox's limits (src/timeseries/sandbox/limits.ts): time, heap, stack, script length, points per call. */
  SCRIPT_TIMEOUT: 400,
  SCRIPT_MEMORY_LIMIT: 400,
  SCRIPT_STACK_OVERFLOW: 400,
  SCRIPT_TOO_LONG: 400,
  SCRIPT_INPUT_TOO_LARGE: 400,
  /**
   * A data-store query that ran past QUERY_TIMEOUT_MS (docs/limits-and-errors.md "Query budgets"); 400 like
   * SCRIPT_TIMEOUT: the query asks for more work than the service gives one query. `budget` names the variable.
   */
  QUERY_TIMEOUT: 400,
  INVALID_TOPIC: 400,
  /** A REST message header that sets an MQTT 5 property (X-MQTT-*, Content-Type) is malformed or over its limit. */
  INVALID_MESSAGE_PROPERTY: 400,
  INVALID_TIMESTAMP: 400,
  /** A fleet query's `filter` that does not parse or names an unknown variable or function (docs/fleet-query.md). */
  INVALID_FILTER: 400,
  /** A shadow write's If-Match / If-None-Match (REST) or CoAP option that is not a list of entity tags (issue 25 §1). */
  INVALID_CONDITION: 400,
  BATCH_TOO_LARGE: 400,
  INVALID_BATCH_ITEM: 400,
  /** Admin: a webhook whose address is loopback, link-local, private or otherwise not public (WEBHOOK_ALLOW_HOSTS). */
  WEBHOOK_ADDRESS_REFUSED: 400,
  MISSING_CREDENTIALS: 401,
  INVALID_CREDENTIALS: 401,
  DEVICE_DISABLED: 403,
  DEVICE_BANNED: 403,
  /** An application key (issue 22) whose secret is right but which an operator disabled (PATCH enabled: false). */
  APPLICATION_DISABLED: 403,
  OTHER_GROUP: 403,
  /** A device named in an application's `@tap/...` topic outside the key's project or groups (issue 22). */
  DEVICE_OUT_OF_REACH: 403,
  METRIC_FORBIDDEN: 403,
  /** Deleting history (POST /datapoints/delete, DELETE /metric) with a user token issued without `scope: write`. */
  READ_ONLY_TOKEN: 403,
  /** A user token issued without the grant the call needs (`fleet`, `desired`: docs/operations.md "User-token grants"); `grant` names it. */
  TOKEN_GRANT_MISSING: 403,
  /** Admin: the operator's role is below what the route needs (docs/operations.md "Operators, roles and the audit log"); `needs` names it. */
  ROLE_FORBIDDEN: 403,
  /** Admin: the call is about a project outside the operator's projects; `projectid` names it. */
  PROJECT_FORBIDDEN: 403,
  DEVICE_NOT_FOUND: 404,
  ALIAS_NOT_FOUND: 404,
  /** `?at=` before the oldest kept revision of the shadow (issue 25 §3); `oldest` gives its time. */
  REVISION_NOT_KEPT: 404,
  /** Admin: a user token asked for a project that has no device (projects exist through their devices). */
  PROJECT_NOT_FOUND: 404,
  /** Admin: the device or group has no schema of its own. */
  SCHEMA_NOT_FOUND: 404,
  /** Admin: the device (or group) has no datatag with that attr (issue 23 §1). */
  DATATAG_NOT_FOUND: 404,
  /** Admin: the project has no event hook of that name. */
  HOOK_NOT_FOUND: 404,
  /** Admin: no operator of that name. */
  OPERATOR_NOT_FOUND: 404,
  /** Admin: no application key of that key (issue 22). */
  APPLICATION_NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  /** GET /features/{feature} of a feature KairosDB's API does not have (KairosDB: 404 "Unknown feature"). */
  FEATURE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  /** HTTP: the request body did not arrive within HTTP_BODY_TIMEOUT_MS of the headers; the connection is closed. */
  REQUEST_TIMEOUT: 408,
  ALIAS_TAKEN: 409,
  /** Admin: a device id given for a new device that another device has (devices/registration.ts). */
  DEVICE_ID_TAKEN: 409,
  /** Admin: a token given for a new device that another device holds: a token alone names a device (MQTT without ClientID). */
  TOKEN_TAKEN: 409,
  /** Admin: an operator of that name exists. */
  OPERATOR_TAKEN: 409,
  /** Admin: an import with a malformed row; `rowErrors` lists every problem of every row, nothing was written. */
  IMPORT_INVALID: 400,
  /** Admin: an import whose rows clash with each other or with devices stored (`rowErrors`); nothing was written. */
  IMPORT_CONFLICT: 409,
  /** A new retained topic in a group that already keeps RETAINED_PER_GROUP_LIMIT of them (docs/mqtt.md "Persistent sessions"). */
  RETAINED_LIMIT: 409,
  /** A conditional shadow write (If-Match, If-None-Match, a body's `rev`) whose condition failed; nothing applied; `rev` is the shadow's. */
  REV_MISMATCH: 412,
  PAYLOAD_TOO_LARGE: 413,
  SHADOW_TOO_LARGE: 413,
  /**
   * A data-store query over a size budget (QUERY_MAX_POINTS_SCANNED, QUERY_MAX_POINTS_RETURNED,
   * QUERY_MAX_RESPONSE_BYTES, QUERY_MAX_GROUPS), found before it runs or while it runs; `budget` names the variable.
   */
  QUERY_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  /** A device over its per-device rate limit (RATE_LIMIT_RPS/RATE_LIMIT_BURST); the reply has Retry-After. */
  RATE_LIMITED: 429,
  /** Too many failed credential checks from this address (ratelimit/failure-throttle.ts); `retryAfter` in seconds. */
  TOO_MANY_FAILURES: 429,
  /** A project's monthly quota is used up (docs/automation.md "Quotas"); `quota` names it, `resetsAt` says when it refills. */
  QUOTA_EXCEEDED: 429,
  /** The caller's data-store queries fill their slots and queue (QUERY_CONCURRENCY_PER_CALLER, ...); Retry-After. */
  TOO_MANY_QUERIES: 429,
  /** CoAP: the client holds too many unfinished block-wise uploads, or too many of their bytes (COAP_UPLOAD_*). */
  TOO_MANY_UPLOADS: 429,
  /**
   * Never an HTTP answer: the notice on `@private/error` of a persistent session that comes back to find that its full
   * queue (SESSION_QUEUE_LIMIT) dropped its oldest messages, too many having come while it was away; `dropped` says how many.
   */
  MESSAGES_DROPPED: 429,
  INTERNAL: 500,
  /** GET /feed/api/v1/health/check: a backend does not answer (KairosDB answers 500 then, reference §8). */
  HEALTH_CHECK_FAILED: 500,
  /** A backend answered something the service cannot use (e.g. KairosDB 1.2.1's 500 on a NaN result). */
  BACKEND_ERROR: 500,
  SHUTTING_DOWN: 503,
  /** A backend (KairosDB, ...) is unreachable, timed out or reports its own datastore down; retry later. */
  BACKEND_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  readonly status: number;
  /** 4xx messages are safe to show the client; 5xx details are not (koa's `expose` rule). */
  readonly expose: boolean;

  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra members merged into the error body, e.g. `{inputsize}` for an oversized batch. */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
    this.expose = this.status < 500;
  }
}

export interface ErrorBody {
  status: number;
  code: ErrorCode;
  message: string;
  [extra: string]: unknown;
}

export function toErrorBody(err: AppError): ErrorBody {
  return { status: err.status, code: err.code, message: err.message, ...err.extra };
}

/**
 * The one rule that turns anything thrown into what a client sees, on every transport (HTTP, CoAP, MQTT replies):
 * an AppError's own body, or INTERNAL with a generic message, reported once through `logInternal`; the details of
 * an unexpected error never reach the client.
 */
export function errorBodyOf(err: unknown, logInternal: (err: unknown) => void): ErrorBody {
  if (err instanceof AppError) return toErrorBody(err);
  logInternal(err);
  return { status: 500, code: 'INTERNAL', message: 'internal server error' };
}

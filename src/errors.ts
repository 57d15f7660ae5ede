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
  /** A js_function / js_filter / js_range script that failed, timed out or returned a non-number (reference §6.5). */
  SCRIPT_ERROR: 400,
  /** The script sandbox's limits (src/timeseries/sandbox/limits.ts): time, heap, stack, script length, points per call. */
  SCRIPT_TIMEOUT: 400,
  SCRIPT_MEMORY_LIMIT: 400,
  SCRIPT_STACK_OVERFLOW: 400,
  SCRIPT_TOO_LONG: 400,
  SCRIPT_INPUT_TOO_LARGE: 400,
  INVALID_TOPIC: 400,
  INVALID_TIMESTAMP: 400,
  BATCH_TOO_LARGE: 400,
  INVALID_BATCH_ITEM: 400,
  /** Admin: a webhook whose address is loopback, link-local, private or otherwise not public (WEBHOOK_ALLOW_HOSTS). */
  WEBHOOK_ADDRESS_REFUSED: 400,
  MISSING_CREDENTIALS: 401,
  INVALID_CREDENTIALS: 401,
  DEVICE_DISABLED: 403,
  DEVICE_BANNED: 403,
  OTHER_GROUP: 403,
  METRIC_FORBIDDEN: 403,
  DEVICE_NOT_FOUND: 404,
  ALIAS_NOT_FOUND: 404,
  /** Admin: the device or group has no schema of its own. */
  SCHEMA_NOT_FOUND: 404,
  /** Admin: the project has no event hook of that name. */
  HOOK_NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  ALIAS_TAKEN: 409,
  PAYLOAD_TOO_LARGE: 413,
  SHADOW_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  /** A device over its per-device rate limit (RATE_LIMIT_RPS/RATE_LIMIT_BURST); the reply has Retry-After. */
  RATE_LIMITED: 429,
  /** A project's monthly quota is used up (README "Quotas"); `quota` names it, `resetsAt` says when it refills. */
  QUOTA_EXCEEDED: 429,
  INTERNAL: 500,
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

export const internalErrorBody = (): ErrorBody => ({
  status: 500,
  code: 'INTERNAL',
  message: 'internal server error',
});

import { ERROR_STATUS, ErrorCode } from '../../core/errors';
import { Response, Schema, schemaRef } from './types';

/** Every code of src/core/errors.ts, in its order; the document can never name fewer than the service may send. */
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** The one error body of every route (docs/limits-and-errors.md "Errors"); the extra members appear only with the codes named. */
export const ErrorSchema: Schema = {
  type: 'object',
  description:
    'The one error body of every route. `status` repeats the HTTP code and `requestId` the `X-Request-Id` header. ' +
    'The data-store API (`/feed/api/v1`) also sends KairosDB\'s `errors` list on every error.',
  required: ['status', 'code', 'message', 'requestId'],
  properties: {
    status: { type: 'integer', minimum: 400, maximum: 599 },
    code: { type: 'string', enum: ERROR_CODES, description: 'Stable code; see docs/limits-and-errors.md, "Errors".' },
    message: { type: 'string', description: 'For people; 5xx messages are generic (details only in the log).' },
    requestId: { type: 'string' },
    errors: {
      type: 'array',
      items: { type: 'string' },
      description: 'Validation problems as `path: problem (got value)` lines, or KairosDB\'s messages.',
    },
    errcode: { const: 429, description: '`BATCH_TOO_LARGE` only: the code NETPIE devices already parse.' },
    inputsize: { type: 'integer', description: '`BATCH_TOO_LARGE` only: number of items sent.' },
    ackid: { type: ['string', 'number'], description: '`BATCH_TOO_LARGE` only: the batch\'s `ackid`, echoed.' },
    index: { type: 'integer', description: '`INVALID_BATCH_ITEM` only: index of the bad item.' },
    rev: { type: 'integer', description: '`REV_MISMATCH` only: the shadow\'s current revision (its ETag without the quotes).' },
    retryAfter: {
      type: 'integer',
      description: '`RATE_LIMITED`, `TOO_MANY_FAILURES`, `QUOTA_EXCEEDED` and `TOO_MANY_QUERIES`: seconds to wait, as in the `Retry-After` header.',
    },
    budget: {
      type: 'string',
      description: '`QUERY_TOO_LARGE` and `QUERY_TIMEOUT` only: the variable of the budget the query went over, e.g. `QUERY_MAX_POINTS_RETURNED`.',
    },
    quota: {
      enum: ['shadowOps', 'expressionRuns', 'triggerRuns', 'messages', 'apiCalls'],
      description: '`QUOTA_EXCEEDED` only: the monthly quota that is used up.',
    },
    limit: {
      type: 'integer',
      description: '`QUOTA_EXCEEDED`: the project\'s monthly limit of that quota; `QUERY_TOO_LARGE` and `QUERY_TIMEOUT`: the budget\'s value.',
    },
    used: { type: 'integer', description: '`QUOTA_EXCEEDED` only: how much of it is used this month.' },
    resetsAt: { type: 'string', format: 'date-time', description: '`QUOTA_EXCEEDED` only: when the quota refills (the next month, UTC).' },
    dropped: { type: 'integer', description: '`MESSAGES_DROPPED` only (an MQTT notice, never an HTTP answer): messages dropped.' },
    rowErrors: {
      type: 'array',
      description: '`IMPORT_INVALID` and `IMPORT_CONFLICT` only: every problem of every row; nothing was written.',
      items: {
        type: 'object',
        required: ['row', 'field', 'code', 'message'],
        additionalProperties: false,
        properties: {
          row: { type: 'integer', minimum: 1, description: 'The device\'s place in the import, the first being 1.' },
          line: { type: 'integer', minimum: 2, description: 'CSV only: the line the row starts on (the header is line 1).' },
          field: { type: ['string', 'null'], description: 'The column or member at fault; null for the row as a whole.' },
          code: { type: 'string', enum: ERROR_CODES },
          message: { type: 'string' },
        },
      },
    },
  },
};

/** One example message per code, so each error response shows what a client will read. */
const EXAMPLE_MESSAGES: Record<ErrorCode, string> = {
  INVALID_JSON: 'body is not valid JSON: Unexpected end of JSON input',
  INVALID_BODY: 'data: expected a JSON object of fields (got 5)',
  INVALID_QUERY: 'query parameter "alias" given more than once',
  KAIROS_QUERY_INVALID: 'query.metric[0].name may not be empty',
  SCRIPT_ERROR: 'Error during script execution, please check the syntax: ReferenceError: x is not defined',
  SCRIPT_TIMEOUT: 'Script execution exceeded the time limit of 1000 ms',
  SCRIPT_MEMORY_LIMIT: 'Script execution ran out of memory: the limit is 32 MiB per call, on top of the points it is given',
  SCRIPT_STACK_OVERFLOW: 'Script execution exceeded the stack limit of 256 KiB (recursion too deep)',
  SCRIPT_TOO_LONG: 'Script is 10300 bytes long, over the limit of 10240 bytes',
  SCRIPT_INPUT_TOO_LARGE: 'Number of points in script call exceeds configured limit of 1000000',
  QUERY_TIMEOUT: 'the query ran longer than its budget of 10000 ms (QUERY_TIMEOUT_MS): narrow the range or simplify the aggregators',
  INVALID_TOPIC: 'give the topic in the path or in ?topic=, not both',
  INVALID_MESSAGE_PROPERTY: 'x-mqtt-message-expiry: expected whole seconds from 1 to 4294967295 (got "soon")',
  INVALID_TIMESTAMP: 'timestamp: more than 24 hours ahead',
  INVALID_FILTER: 'filter: cannot compare string with number (at character 11)',
  INVALID_CONDITION: 'if-match: expected * or a list of entity tags such as "7" (got 7)',
  BATCH_TOO_LARGE: 'batch size exceeds 100',
  INVALID_BATCH_ITEM: 'batch item 3: data: expected a JSON object of fields (got "x")',
  WEBHOOK_ADDRESS_REFUSED: 'config.uri: 10.0.0.5 is a private address; allow it with WEBHOOK_ALLOW_HOSTS',
  MISSING_CREDENTIALS: 'send Authorization: Device <ClientID>:<token>',
  INVALID_CREDENTIALS: 'unknown device or wrong token',
  DEVICE_DISABLED: 'this device is disabled',
  DEVICE_BANNED: 'this device is banned',
  APPLICATION_DISABLED: 'this application key is disabled',
  OTHER_GROUP: 'device "lamp" is not in your group',
  DEVICE_OUT_OF_REACH: 'the device is outside the project or groups of this application key',
  METRIC_FORBIDDEN: 'metric 5d0c… is not a device you may read',
  METRIC_AMBIGUOUS: 'metric "lamp" is the alias of 2 devices you may read; name one as "kitchen/lamp" or "garage/lamp", or by its id',
  READ_ONLY_TOKEN: 'this user token may only read; issue one with "scope": "write" (POST /v2/admin/tokens) to delete history',
  TOKEN_GRANT_MISSING: 'this user token was issued without the grant "fleet"; issue one with "grants": ["fleet"] (POST /v2/admin/tokens)',
  ROLE_FORBIDDEN: 'PUT /v2/admin/devices/:deviceid/triggers needs the role operator (yours: viewer)',
  PROJECT_FORBIDDEN: 'project home is not among your projects',
  DEVICE_NOT_FOUND: 'no device with id 5d0c…',
  ALIAS_NOT_FOUND: 'no device named "lamp" in your group',
  REVISION_NOT_KEPT: 'no revision of the shadow is kept from 1700000000000 ms; the oldest kept is from 1700003600000 ms',
  PROJECT_NOT_FOUND: 'project "home" has no device; user tokens are issued for existing projects only',
  SCHEMA_NOT_FOUND: 'device 5d0c… has no schema',
  DATATAG_NOT_FOUND: 'device 5d0c… has no datatag "temp"',
  HOOK_NOT_FOUND: 'project home has no event hook named "alert"',
  OPERATOR_NOT_FOUND: 'no operator named alice',
  APPLICATION_NOT_FOUND: 'no application key 0b8e2f4c-…',
  ROUTE_NOT_FOUND: 'no route for GET /v2/device/nothing',
  FEATURE_NOT_FOUND: "Unknown feature 'bogus'",
  METHOD_NOT_ALLOWED: 'method not allowed on this path',
  REQUEST_TIMEOUT: 'the request body did not arrive within 30000 ms (HTTP_BODY_TIMEOUT_MS)',
  ALIAS_TAKEN: 'alias "lamp" is already used in group lights',
  DEVICE_ID_TAKEN: 'device id 777d5c96-4c83-4aa6-a273-5ee7c5f453b1 is already in use',
  TOKEN_TAKEN: 'another device holds this token',
  OPERATOR_TAKEN: 'an operator named alice exists',
  IMPORT_INVALID: '1 of 120 rows is malformed; nothing was imported',
  IMPORT_CONFLICT: '2 of 120 rows clash with devices stored or with other rows; nothing was imported',
  RETAINED_LIMIT: 'this group already keeps 1000 retained messages; clear one (publish an empty retained message) first',
  REV_MISMATCH: 'the shadow is at rev 8, not as the write expects; nothing was applied',
  PAYLOAD_TOO_LARGE: 'body is larger than 262144 bytes',
  SHADOW_TOO_LARGE: 'shadow would be 70012 bytes; the limit is 65536',
  QUERY_TOO_LARGE: 'the answer would hold more than 1000000 points (QUERY_MAX_POINTS_RETURNED): narrow the range, use a larger sampling or fewer groups',
  UNSUPPORTED_MEDIA_TYPE: "got Content-Type: application/xml; accepted: application/json (or a +json type), text/plain, or none: add -H 'Content-Type: application/json'",
  RATE_LIMITED: 'this device is over its limit of 20 requests per second (bursts of 40); retry after 1 s',
  TOO_MANY_FAILURES: 'too many failed credential checks from this address; retry after 540 s',
  MESSAGES_DROPPED: '12 queued messages were dropped while this device was away: a session queues at most 1000',
  QUOTA_EXCEEDED: 'project home has used its monthly quota of 500000 shadow operations (shadowOps); it refills at 2025-02-01T00:00:00.000Z',
  TOO_MANY_QUERIES: 'your project runs 2 queries and queues 8 already (QUERY_CONCURRENCY_PER_CALLER, QUERY_QUEUE_PER_CALLER); retry after 1 s',
  TOO_MANY_UPLOADS: 'this client has 4 unfinished block-wise uploads already (COAP_UPLOADS_PER_CLIENT); finish one first',
  INTERNAL: 'internal server error',
  HEALTH_CHECK_FAILED: 'not every backend answers: kairosdb',
  BACKEND_ERROR: 'the time-series backend (KairosDB) failed the query (HTTP 500)',
  SHUTTING_DOWN: 'the time-series store is closed',
  BACKEND_UNAVAILABLE: 'the time-series backend (KairosDB) is unavailable: connection refused; try again later',
};

const EXTRA_MEMBERS: Partial<Record<ErrorCode, Record<string, unknown>>> = {
  BATCH_TOO_LARGE: { errcode: 429, inputsize: 101, ackid: 1839 },
  INVALID_BATCH_ITEM: { index: 3 },
  REV_MISMATCH: { rev: 8 },
  KAIROS_QUERY_INVALID: { errors: ['query.metric[0].name may not be empty'] },
  RATE_LIMITED: { retryAfter: 1 },
  TOO_MANY_FAILURES: { retryAfter: 540 },
  QUERY_TIMEOUT: { errors: ['the query ran longer than its budget of 10000 ms (QUERY_TIMEOUT_MS): narrow the range or simplify the aggregators'], budget: 'QUERY_TIMEOUT_MS', limit: 10000 },
  QUERY_TOO_LARGE: {
    errors: ['the answer would hold more than 1000000 points (QUERY_MAX_POINTS_RETURNED): narrow the range, use a larger sampling or fewer groups'],
    budget: 'QUERY_MAX_POINTS_RETURNED',
    limit: 1000000,
  },
  TOO_MANY_QUERIES: { retryAfter: 1 },
  MESSAGES_DROPPED: { dropped: 12 },
  IMPORT_INVALID: { rowErrors: [{ row: 7, line: 8, field: 'token', code: 'INVALID_BODY', message: 'expected 16-128 characters of A-Z a-z 0-9 . _ ~ - with at least 8 different ones' }] },
  IMPORT_CONFLICT: { rowErrors: [{ row: 3, line: 4, field: 'alias', code: 'ALIAS_TAKEN', message: 'alias "lamp" is also in row 1 (group lights)' }] },
  QUOTA_EXCEEDED: { quota: 'shadowOps', limit: 500000, used: 500000, resetsAt: '2025-02-01T00:00:00.000Z', retryAfter: 86400 },
};

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'No or wrong credentials',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  408: 'Request body too slow',
  409: 'Conflict',
  412: 'Precondition failed',
  413: 'Too large',
  415: 'Unsupported media type',
  429: 'Too many requests',
  500: 'Internal error',
  503: 'Unavailable (stopping, or a backend is down)',
};

/** Errors every call may meet, whatever it does. */
export const ALWAYS: readonly ErrorCode[] = ['INTERNAL'];
export const DEVICE_AUTH_ERRORS: readonly ErrorCode[] = ['MISSING_CREDENTIALS', 'INVALID_CREDENTIALS', 'DEVICE_DISABLED', 'DEVICE_BANNED'];
/** The Device API also limits each device's request rate (RATE_LIMIT_RPS) and meters its project's quotas. */
export const DEVICE_API_ERRORS: readonly ErrorCode[] = [...DEVICE_AUTH_ERRORS, 'TOO_MANY_FAILURES', 'RATE_LIMITED', 'QUOTA_EXCEEDED'];
export const JSON_BODY_ERRORS: readonly ErrorCode[] = ['INVALID_JSON', 'INVALID_BODY', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'REQUEST_TIMEOUT'];

/** The documented error responses of an operation: its codes grouped by HTTP status, one example per code. */
export function errorResponses(...groups: (readonly ErrorCode[])[]): Record<string, Response> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set([...groups.flat(), ...ALWAYS])) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, Response> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    out[String(status)] = {
      ...(status === 429 ? { headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } } } : {}),
      description: `${STATUS_TEXT[status] ?? 'Error'}: ${codes.map((c) => `\`${c}\``).join(', ')}`,
      content: {
        'application/json': {
          schema: schemaRef('Error'),
          examples: Object.fromEntries(codes.map((code) => [code, {
            summary: code,
            value: { status, code, message: EXAMPLE_MESSAGES[code], requestId: '8f1c2a7e-…', ...EXTRA_MEMBERS[code] },
          }])),
        },
      },
    };
  }
  return out;
}

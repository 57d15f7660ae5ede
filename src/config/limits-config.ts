import * as t from 'io-ts';
import { DEFAULT_QUERY_BUDGETS, QueryBudgets } from '../timeseries/query/query-run';
import { DEFAULT_SANDBOX_POOL } from '../timeseries/sandbox/sandbox-pool';

/**
 * The variables of the limits that keep one caller from stalling, starving or exhausting the service (issue 10), with
 * their defaults; docs/limits-and-errors.md ("Budgets of shared resources") names each, its error and how to raise it.
 */

/** A whole number from `min` up to 10 digits. */
const wholeNumber = (min: number) =>
  new t.Type<number, string, unknown>(
    `WholeNumber>=${min}`,
    (u): u is number => typeof u === 'number',
    (u, c) =>
      typeof u === 'string' && /^\d{1,10}$/.test(u) && Number(u) >= min
        ? t.success(Number(u))
        : t.failure(u, c, `must be a whole number, at least ${min}`),
    String,
  );

const AtLeastOne = wholeNumber(1);
const AtLeastZero = wholeNumber(0);

export const LIMITS_ENV = {
  QUERY_MAX_POINTS_SCANNED: AtLeastOne,
  QUERY_MAX_POINTS_RETURNED: AtLeastOne,
  QUERY_MAX_RESPONSE_BYTES: AtLeastOne,
  QUERY_MAX_GROUPS: AtLeastOne,
  QUERY_TIMEOUT_MS: AtLeastOne,
  QUERY_CONCURRENCY: AtLeastOne,
  QUERY_CONCURRENCY_PER_CALLER: AtLeastOne,
  QUERY_QUEUE_PER_CALLER: AtLeastZero,
  QUERY_QUEUE_TIMEOUT_MS: AtLeastOne,
  SANDBOX_WORKERS: AtLeastOne,
  SANDBOX_CONCURRENCY_PER_CALLER: AtLeastOne,
  HTTP_BODY_TIMEOUT_MS: AtLeastOne,
  COAP_UPLOADS_PER_CLIENT: AtLeastOne,
  COAP_UPLOAD_BYTES_PER_CLIENT: AtLeastOne,
  COAP_UPLOAD_BYTES_TOTAL: AtLeastOne,
};

const MiB = 1024 * 1024;

/** COAP_UPLOADS_PER_CLIENT, COAP_UPLOAD_BYTES_PER_CLIENT, COAP_UPLOAD_BYTES_TOTAL when unset. */
export const DEFAULT_COAP_UPLOAD_LIMITS: CoapUploadLimits = Object.freeze({ perClient: 4, bytesPerClient: 2 * MiB, bytesTotal: 64 * MiB });

export const LIMITS_DEFAULTS: { readonly [K in keyof typeof LIMITS_ENV]: string } = {
  QUERY_MAX_POINTS_SCANNED: String(DEFAULT_QUERY_BUDGETS.maxPointsScanned),
  QUERY_MAX_POINTS_RETURNED: String(DEFAULT_QUERY_BUDGETS.maxPointsReturned),
  QUERY_MAX_RESPONSE_BYTES: String(DEFAULT_QUERY_BUDGETS.maxResponseBytes),
  QUERY_MAX_GROUPS: String(DEFAULT_QUERY_BUDGETS.maxGroups),
  QUERY_TIMEOUT_MS: String(DEFAULT_QUERY_BUDGETS.timeoutMs),
  QUERY_CONCURRENCY: '8',
  QUERY_CONCURRENCY_PER_CALLER: '2',
  QUERY_QUEUE_PER_CALLER: '8',
  QUERY_QUEUE_TIMEOUT_MS: '10000',
  SANDBOX_WORKERS: String(DEFAULT_SANDBOX_POOL.workers),
  SANDBOX_CONCURRENCY_PER_CALLER: String(DEFAULT_SANDBOX_POOL.perTenant),
  HTTP_BODY_TIMEOUT_MS: '30000',
  COAP_UPLOADS_PER_CLIENT: String(DEFAULT_COAP_UPLOAD_LIMITS.perClient),
  COAP_UPLOAD_BYTES_PER_CLIENT: String(DEFAULT_COAP_UPLOAD_LIMITS.bytesPerClient),
  COAP_UPLOAD_BYTES_TOTAL: String(DEFAULT_COAP_UPLOAD_LIMITS.bytesTotal),
};

/** Data-store queries: budgets per query, and slots shared between callers (a user token's project, a device's group). */
export interface QueryLimits {
  readonly budgets: QueryBudgets;
  /** Queries running at once, over every caller. */
  readonly concurrency: number;
  /** Queries one caller may run at once. */
  readonly perCaller: number;
  /** Queries one caller may have waiting for a slot; beyond it 429 TOO_MANY_QUERIES. */
  readonly queuePerCaller: number;
  /** How long a query may wait for a slot before 429 TOO_MANY_QUERIES. */
  readonly queueTimeoutMs: number;
}

/** The js_* script sandbox: threads, and how many of them one caller may use at once. */
export interface SandboxPoolLimits {
  readonly workers: number;
  readonly perCaller: number;
}

/** CoAP block-wise uploads (RFC 7959 Block1) not finished yet, which hold memory before any credential is checked. */
export interface CoapUploadLimits {
  /** Unfinished uploads of one client (its IP address). */
  readonly perClient: number;
  /** Bytes the unfinished uploads of one client hold. */
  readonly bytesPerClient: number;
  /** Bytes all unfinished uploads hold. */
  readonly bytesTotal: number;
}

export interface ServiceLimits {
  readonly query: QueryLimits;
  readonly sandbox: SandboxPoolLimits;
  /** How long an HTTP request body may take to arrive once the headers have. */
  readonly httpBodyTimeoutMs: number;
  readonly coapUploads: CoapUploadLimits;
}

type LimitsEnv = { readonly [K in keyof typeof LIMITS_ENV]: number };

export function serviceLimits(e: LimitsEnv): ServiceLimits {
  return {
    query: {
      budgets: {
        maxPointsScanned: e.QUERY_MAX_POINTS_SCANNED,
        maxPointsReturned: e.QUERY_MAX_POINTS_RETURNED,
        maxResponseBytes: e.QUERY_MAX_RESPONSE_BYTES,
        maxGroups: e.QUERY_MAX_GROUPS,
        timeoutMs: e.QUERY_TIMEOUT_MS,
      },
      concurrency: e.QUERY_CONCURRENCY,
      perCaller: e.QUERY_CONCURRENCY_PER_CALLER,
      queuePerCaller: e.QUERY_QUEUE_PER_CALLER,
      queueTimeoutMs: e.QUERY_QUEUE_TIMEOUT_MS,
    },
    sandbox: { workers: e.SANDBOX_WORKERS, perCaller: e.SANDBOX_CONCURRENCY_PER_CALLER },
    httpBodyTimeoutMs: e.HTTP_BODY_TIMEOUT_MS,
    coapUploads: {
      perClient: e.COAP_UPLOADS_PER_CLIENT,
      bytesPerClient: e.COAP_UPLOAD_BYTES_PER_CLIENT,
      bytesTotal: e.COAP_UPLOAD_BYTES_TOTAL,
    },
  };
}

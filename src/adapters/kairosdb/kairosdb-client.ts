import { Agent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import axios, { AxiosError } from 'axios';
import { isLeft } from 'fp-ts/Either';
import * as t from 'io-ts';
import type { Logger } from 'pino';
import { AppError } from '../../core/errors';
import { KairosQueryError, overBudgetError } from '../../timeseries/query';
import { ErrorsBody } from './kairosdb-codecs';

export interface KairosDbOptions {
  /** Base URL of the KairosDB server, e.g. http://127.0.0.1:8080 (the REST API is under /api/v1). */
  readonly url: string;
  /** Whole-request deadline in ms, connection included. */
  readonly timeoutMs: number;
  /** For what KairosDB says of its own failures (5xx bodies), which clients do not see. */
  readonly logger: Logger;
}

export interface KairosDbResponse {
  readonly status: number;
  readonly data: unknown;
}

/**
 * KairosDB's REST API over axios. A request resolves with the status and parsed body whatever the status; only a
 * request that got no answer (refused, reset, timed out) rejects, already translated: AppError BACKEND_UNAVAILABLE.
 * Nothing of axios leaves this file.
 */
export interface KairosDbRequest {
  /** Sent as JSON, or as it is when a Buffer (with its own content-type header). */
  readonly data?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** Query-string parameters. */
  readonly params?: Readonly<Record<string, string>>;
  /** Ends the request early (the query's client went away, or its time ran out): rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /**
   * The largest answer to read, in bytes (QUERY_MAX_RESPONSE_BYTES): KairosDB's answer is read whole before the
   * service answers, so a larger one is cut off as it arrives and refused as QUERY_TOO_LARGE (issue 10).
   */
  readonly maxResponseBytes?: number;
}

export interface KairosDbClient {
  request(method: 'GET' | 'POST' | 'DELETE', path: string, request?: KairosDbRequest): Promise<KairosDbResponse>;
  /** Ends idle keep-alive connections; idempotent. */
  close(): void;
}

export function createKairosDbClient(options: KairosDbOptions): KairosDbClient {
  const keepAlive = { keepAlive: true, maxSockets: 32 };
  const httpAgent = new Agent(keepAlive);
  const httpsAgent = new HttpsAgent(keepAlive);
  const http = axios.create({
    baseURL: `${options.url.replace(/\/+$/, '')}/api/v1`,
    // `timeout` is the socket's idle time in Node; the signal below bounds the whole request.
    timeout: options.timeoutMs,
    validateStatus: () => true,
    httpAgent,
    httpsAgent,
    // The service talks to the URL it was given, never to an environment proxy.
    proxy: false,
    maxRedirects: 0,
  });
  return {
    async request(method, path, { data, headers, params, signal, maxResponseBytes } = {}) {
      const deadline = AbortSignal.timeout(options.timeoutMs);
      try {
        const res = await http.request({
          method, url: path, data, headers, params,
          signal: signal === undefined ? deadline : AbortSignal.any([deadline, signal]),
          ...(maxResponseBytes === undefined || !Number.isFinite(maxResponseBytes) ? {} : { maxContentLength: maxResponseBytes }),
        });
        return { status: res.status, data: res.data as unknown };
      } catch (err) {
        if (signal?.aborted) throw signal.reason;
        if (maxResponseBytes !== undefined && err instanceof AxiosError && /maxContentLength/.test(err.message)) {
          throw overBudgetError('maxResponseBytes', maxResponseBytes);
        }
        // Not logged here: the reason travels in the error, and its callers log it once (the outbox relay) or answer
        // it (503 to a query, a failed /readyz check), every few seconds while KairosDB is down.
        throw unavailable(transportReason(err, options.timeoutMs));
      }
    },
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

export const unavailable = (reason: string) =>
  new AppError('BACKEND_UNAVAILABLE', `the time-series backend (KairosDB) is unavailable: ${reason}; try again later`);

function transportReason(err: unknown, timeoutMs: number): string {
  const code = err instanceof AxiosError ? err.code : (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ECONNREFUSED': return 'connection refused';
    case 'ECONNRESET': return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN': return 'host not found';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH': return 'host unreachable';
    case 'ECONNABORTED':
    case 'ETIMEDOUT':
    case 'ERR_CANCELED': return `no answer within ${timeoutMs} ms`;
    default: return 'no answer';
  }
}

/** The messages of a `{"errors": [...]}` body, or none. */
export function errorsOf(data: unknown): string[] {
  const decoded = ErrorsBody.decode(data);
  return isLeft(decoded) ? [] : decoded.right.errors.map((e) => e ?? 'null');
}

/**
 * KairosDB 500s that depend only on the query (reference §4.6). The embedded engine refuses the same queries with
 * 400 (kairos-query-error.ts), so they get the same answer here whichever backend runs.
 */
const QUERY_FAULTS = [
  /cannot compute (rate|sampler) for data points with the same time stamp/,
  /^No aggregator can be chained after/,
  /is not in \[0\.\.1\]$/,
];

/** A 500 of KairosDB's datastore: Cassandra unreachable or timing out (DataStax driver exceptions). */
const DATASTORE_DOWN = /NoHostAvailable|OperationTimedOut|ReadTimeout|WriteTimeout|Unavailable|DatastoreException/;

/** KairosDB 1.2.1 cannot print NaN or infinities (fork 1.2.25 prints null): a 500 "NaN or Infinity:..." */
const NAN_RESULT = /^NaN or Infinity/;

/**
 * The error for a KairosDB answer that is not a success, for a request made on a client's behalf (`what` names it):
 * KairosDB's 400 messages are passed through as they are (KairosQueryError: `{"errors": [...]}`), its known
 * query-dependent 500s too; a datastore outage or a 502-504 is BACKEND_UNAVAILABLE (503); anything else BACKEND_ERROR
 * (500). KairosDB's own text of a 5xx goes to the log, not to the client (it names hosts and Java classes).
 */
export function failureOf(res: KairosDbResponse, what: string, logger: Logger): AppError {
  const errors = errorsOf(res.data);
  if (res.status === 400) return new KairosQueryError(errors.length > 0 ? errors : [`KairosDB refused the ${what} (400)`]);
  if (res.status === 500 && errors.length > 0 && errors.every((e) => QUERY_FAULTS.some((p) => p.test(e)))) {
    return new KairosQueryError(errors);
  }
  logger.warn({ status: res.status, errors, body: errors.length > 0 ? undefined : res.data }, `KairosDB failed the ${what}`);
  if (res.status === 500 && errors.some((e) => NAN_RESULT.test(e))) {
    return new AppError('BACKEND_ERROR',
      `the time-series backend (KairosDB 1.2.1) cannot answer this ${what}: a result is NaN or infinite, which it ` +
        'cannot print (it answers 500); narrow the range or change the aggregators');
  }
  if ([502, 503, 504].includes(res.status) || (res.status === 500 && errors.some((e) => DATASTORE_DOWN.test(e)))) {
    return unavailable(`KairosDB answered ${res.status} to the ${what}`);
  }
  return new AppError('BACKEND_ERROR', `the time-series backend (KairosDB) failed the ${what} (HTTP ${res.status})`);
}

/** The body of a 200, decoded with `codec`; an unexpected shape is BACKEND_ERROR. */
export function decodeAnswer<A>(codec: t.Decoder<unknown, A>, res: KairosDbResponse, what: string, logger: Logger): A {
  const decoded = codec.decode(res.data);
  if (isLeft(decoded)) {
    logger.warn({ body: res.data }, `KairosDB answered the ${what} with an unexpected body`);
    throw new AppError('BACKEND_ERROR', `the time-series backend (KairosDB) answered the ${what} with a body the service cannot read`);
  }
  return decoded.right;
}

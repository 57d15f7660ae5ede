import { errors, types } from 'cassandra-driver';
import { AppError } from '../../core/errors';

const codes = types.responseErrorCodes;

/**
 * Server answers that mean "not now" rather than "never": too few replicas alive, a replica or the coordinator
 * overloaded or timing out (native protocol v4 §8, error codes 0x1000-0x1500).
 */
const UNAVAILABLE_CODES = new Set<number>([
  codes.unavailableException,
  codes.overloaded,
  codes.isBootstrapping,
  codes.truncateError,
  codes.writeTimeout,
  codes.readTimeout,
  codes.readFailure,
  codes.writeFailure,
]);

/** Cassandra cannot be reached or cannot serve the request now: worth a retry later, never a client's fault. */
export function isCassandraUnavailable(err: unknown): boolean {
  if (err instanceof errors.ResponseError) return UNAVAILABLE_CODES.has(err.code);
  return (
    err instanceof errors.NoHostAvailableError ||
    err instanceof errors.OperationTimedOutError ||
    err instanceof errors.BusyConnectionError ||
    socketErrorOf(err) !== undefined
  );
}

/** The driver's "Socket was closed" (a plain DriverError flagged `isSocketError`): the connection broke. */
function socketErrorOf(err: unknown): { requestNotWritten?: boolean } | undefined {
  const flags = err as { isSocketError?: boolean; requestNotWritten?: boolean };
  return err instanceof errors.DriverError && flags.isSocketError === true ? flags : undefined;
}

/**
 * A write whose outcome is unknown: the coordinator or the driver gave up waiting, or the connection broke after the
 * request was sent, yet the mutation (or the Paxos proposal of a lightweight transaction) may have been applied.
 */
export function isUnknownWriteOutcome(err: unknown): boolean {
  if (err instanceof errors.ResponseError) return err.code === codes.writeTimeout || err.code === codes.writeFailure;
  const socket = socketErrorOf(err);
  if (socket) return socket.requestNotWritten !== true;
  return err instanceof errors.OperationTimedOutError;
}

/** A few words on why, safe to show a client (no addresses, no statements). */
function shortReason(err: unknown): string {
  if (err instanceof errors.NoHostAvailableError) return 'no node reachable';
  if (err instanceof errors.OperationTimedOutError) return 'no answer in time';
  if (socketErrorOf(err)) return 'connection lost';
  if (err instanceof errors.BusyConnectionError) return 'every connection busy';
  if (err instanceof errors.ResponseError && err.code === codes.unavailableException) return 'too few replicas alive';
  return 'it timed out or is overloaded';
}

/**
 * The adapters' one translation of driver errors: unavailability becomes BACKEND_UNAVAILABLE (503, "retry later");
 * anything else (a bad statement, a schema mismatch) is a bug of ours and stays a plain Error with the driver's as
 * its cause, so the HTTP layer answers a generic 500 and logs it once.
 */
export function translateCassandraError(err: unknown, what: string): Error {
  if (err instanceof AppError) return err;
  if (isCassandraUnavailable(err)) {
    return new AppError('BACKEND_UNAVAILABLE', `the device store (Cassandra) is unavailable: ${shortReason(err)}; try again later`, {
      operation: what,
    });
  }
  return new Error(`Cassandra: ${what} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
}

/** `fn` with its failures translated (translateCassandraError), under the name of what it does. */
export const translated =
  <A extends unknown[], R>(what: string, fn: (...args: A) => Promise<R>) =>
  async (...args: A): Promise<R> => {
    try {
      return await fn(...args);
    } catch (err) {
      throw translateCassandraError(err, what);
    }
  };

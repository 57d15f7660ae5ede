import { AppError } from '../core/errors';
import { Json, JsonObject } from '../core/json';
import { ExpressionError } from '../expressions/errors';
import { createFairSlots, SlotRefusedError } from '../ratelimit/fair-slots';
import { FLEET_QUERY_BOUNDS, FleetQueryRequest } from './codecs';
import { decodeCursor, encodeCursor, QueryIdentity } from './cursor';
import { FleetIndex } from './fleet-index';
import { compileFilter, FleetFilter } from './filter';
import { FleetLimits } from './limits';
import { comparePositions, firstOf, pathReader, pickFields, Position, sortKeyOf } from './order';
import { FleetEntry } from './port';

/** One device of an answer: where it is, its shadow's metadata and its data (the paths of `fields`, or all of it). */
export interface FleetItem {
  deviceid: string;
  groupid: string;
  alias: string;
  rev: number;
  modified: number;
  data: JsonObject;
}

export interface FleetAnswer {
  items: FleetItem[];
  /** Devices the filter matched, over every page. */
  total: number;
  /** Devices the query looked at: the project's, or the group's. */
  scanned: number;
  /** Devices the filter could not be evaluated on (counted as not matching), e.g. comparing a string with a number. */
  filterErrors: number;
  /** Present when more devices follow: the `cursor` of the next page. */
  next?: string;
}

export interface FleetQueries {
  /** The page of the project's devices the request asks for (its project checked by the caller). */
  query(projectid: string, request: FleetQueryRequest, cancelled?: AbortSignal): Promise<FleetAnswer>;
}

/** Devices evaluated between looks at the clock, and between turns given to the rest of the service. */
const CHUNK = 2048;
/** Seconds a refused caller is told to wait: about what a query over a large project takes. */
const RETRY_AFTER_SECONDS = 1;

const itemOf = (entry: FleetEntry, fields: readonly string[] | undefined): FleetItem => ({
  deviceid: entry.deviceid,
  groupid: entry.groupid,
  alias: entry.alias,
  rev: entry.rev,
  modified: entry.modified,
  data: fields ? pickFields(entry.data, fields) : entry.data,
});

const aTurn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * The fleet query (issue 25 §4): the filter is compiled once, then run over every device of the project (or group)
 * as the index holds it, in chunks between which the service serves others; the page is the first `limit` matches in
 * the order (order.ts) after the cursor.
 */
export function createFleetQueries({ index, limits, now = Date.now }: { index: FleetIndex; limits: FleetLimits; now?: () => number }): FleetQueries {
  const slots = createFairSlots({ slots: limits.concurrency, perTenant: limits.perCaller, queuePerTenant: limits.queuePerCaller, maxWaitMs: limits.queueTimeoutMs });

  async function takeSlot(projectid: string, cancelled?: AbortSignal): Promise<() => void> {
    try {
      return await slots.acquire(projectid, cancelled);
    } catch (err) {
      if (!(err instanceof SlotRefusedError)) throw err;
      const why = err.reason === 'queue-full'
        ? `the project's fleet queries fill their ${limits.perCaller} slots and ${limits.queuePerCaller} places in the queue (FLEET_QUERY_CONCURRENCY_PER_CALLER, FLEET_QUERY_QUEUE_PER_CALLER)`
        : `no fleet query slot came free within ${limits.queueTimeoutMs} ms (FLEET_QUERY_QUEUE_TIMEOUT_MS)`;
      throw new AppError('TOO_MANY_QUERIES', `${why}; retry after ${RETRY_AFTER_SECONDS} s`, { retryAfter: RETRY_AFTER_SECONDS });
    }
  }

  async function scan(projectid: string, request: FleetQueryRequest, filter: FleetFilter, after: Position | undefined, cancelled?: AbortSignal) {
    const view = await index.project(projectid);
    const scanned = view.count(request.groupid);
    if (scanned > limits.maxScanned) {
      throw new AppError('QUERY_TOO_LARGE', `the query would scan ${scanned} devices, more than ${limits.maxScanned} (FLEET_QUERY_MAX_DEVICES); narrow it with groupid`, {
        budget: 'FLEET_QUERY_MAX_DEVICES', limit: limits.maxScanned,
      });
    }
    const entries = view.entries(request.groupid);
    const limit = request.limit ?? FLEET_QUERY_BOUNDS.defaultLimit;
    const descending = request.sort?.order === 'desc';
    const read = request.sort ? pathReader(request.sort.field) : () => null;
    const page = firstOf<Position & { entry: FleetEntry }>(limit, descending);
    // One set of variables for the whole scan, each device's put in before its filter runs (synchronously); `$device`
    // is made only for a filter that reads it.
    const variables = new Map<string, Json>([['$', {}], ['$device', {}]]);
    const readsDevice = request.filter?.includes('$device') ?? false;
    const started = now();
    let total = 0;
    let following = 0;
    let filterErrors = 0;
    for (let i = 0; i < entries.length; i++) {
      if (i > 0 && i % CHUNK === 0) {
        await aTurn();
        if (cancelled?.aborted) throw cancelled.reason;
        if (now() - started > limits.timeoutMs) {
          throw new AppError('QUERY_TIMEOUT', `the query ran past ${limits.timeoutMs} ms (FLEET_QUERY_TIMEOUT_MS) after ${i} devices; narrow it with groupid`, {
            budget: 'FLEET_QUERY_TIMEOUT_MS', limit: limits.timeoutMs,
          });
        }
      }
      const entry = entries[i];
      let matches: boolean;
      try {
        variables.set('$', entry.data);
        if (readsDevice) variables.set('$device', deviceOf(entry));
        matches = filter(variables);
      } catch (err) {
        if (!(err instanceof ExpressionError)) throw err;
        filterErrors++;
        continue;
      }
      if (!matches) continue;
      total++;
      const position = { key: sortKeyOf(read(entry)), deviceid: entry.deviceid, entry };
      if (after && comparePositions(position, after, descending) <= 0) continue;
      following++;
      page.offer(position);
    }
    return { scanned, total, filterErrors, items: page.items(), more: following > limit };
  }

  return {
    async query(projectid, request, cancelled) {
      const identity: QueryIdentity = { projectid, filter: request.filter ?? 'true', groupid: request.groupid, sort: request.sort };
      const filter = compileFilter(identity.filter);
      const after = request.cursor === undefined ? undefined : decodeCursor(identity, request.cursor);
      const release = await takeSlot(projectid, cancelled);
      try {
        const { scanned, total, filterErrors, items, more } = await scan(projectid, request, filter, after, cancelled);
        const last = items[items.length - 1];
        return {
          items: items.map(({ entry }) => itemOf(entry, request.fields)),
          total,
          scanned,
          filterErrors,
          ...(more && last ? { next: encodeCursor(identity, last) } : {}),
        };
      } finally {
        release();
      }
    },
  };
}

const deviceOf = (entry: FleetEntry): JsonObject => ({
  deviceid: entry.deviceid, groupid: entry.groupid, alias: entry.alias, rev: entry.rev, modified: entry.modified,
});

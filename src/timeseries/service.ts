import { DataQueries, PreparedAnswer } from './data-queries';
import { deleteRangesOf } from './delete-ranges';
import { PointRelay } from './outbox-relay';
import { HistoryEraser, QueryBody, QueryTimer, TimeSeriesQueries } from './port';
import { answerBytesAtMost, TagsResponse, validateQuery } from './query';
import { namedQuery, qualifiedName } from './metric-aliases';
import {
  checkMetricsReadable, checkMetricsWritable, DataCredentials, DataScope, readableDevices, ScopeDeps, scopeOf, tenantOf,
} from './scope';

export interface DataStoreDeps extends ScopeDeps {
  /** The embedded engine or KairosDB (TIMESERIES): metric and tag listings. */
  queries: Pick<TimeSeriesQueries, 'metricNames' | 'tagsOf'>;
  /** The same, for queries: budgets and the slots shared by every caller (issue 10). */
  slots: DataQueries;
  /** Deletes history on the embedded engine or KairosDB. */
  eraser: HistoryEraser;
  relay: Pick<PointRelay, 'flush'>;
  now: () => number;
  metrics: QueryTimer;
}

/** A query's caller, and a signal that aborts when it goes away before its answer is sent. */
export interface QueryRequest {
  readonly scope: DataScope;
  readonly cancelled: AbortSignal;
  /** Raw points only, never roll-up tiers (the header `X-Openpie-Rollup: off`). */
  readonly rawOnly?: boolean;
}

/**
 * The data-store API (spec 4.7, issue 3 §3, issue 13 §1) in KairosDB's format, whatever transport asks: each use case
 * checks the caller's scope and, since points of acknowledged shadow writes may still wait in the outbox, moves them
 * into the time-series store first, so that every answer includes every write acknowledged before the call.
 */
export interface DataStore {
  /** The caller's scope from the credentials it sent. */
  /** The caller's scope from the credentials it sent from `source` (its address). */
  identify(credentials: DataCredentials, source: string): Promise<DataScope>;
  /** A query (`body` as the client sent it), within budget, holding its slot until `release`. */
  answer(request: QueryRequest, body: unknown): Promise<PreparedAnswer>;
  /** The tags of the series a query selects (reference §8). */
  tags(request: QueryRequest, body: unknown): Promise<TagsResponse>;
  /**
   * The metrics the caller may read that have points, sorted; only those starting with `prefix` when given. A caller
   * with a project gets each such device's readable name `<groupid>/<alias>` too (metric-aliases.ts).
   */
  metricNames(scope: DataScope, prefix?: string): Promise<string[]>;
  /** Tag names, or values, of the metrics the caller may read, sorted. */
  tagNames(scope: DataScope): Promise<string[]>;
  tagValues(scope: DataScope): Promise<string[]>;
  /** POST /datapoints/delete: the points a query selects (deleteRangesOf). */
  deletePoints(scope: DataScope, body: unknown): Promise<void>;
  deleteMetric(scope: DataScope, metric: string): Promise<void>;
}

export function createDataStore(deps: DataStoreDeps): DataStore {
  const { devices, queries, slots, eraser, relay, now, metrics } = deps;

  /**
   * The validated query, its metrics named by device id, refused whole unless the caller may read every metric it
   * names (saved ones included); `renamed` gives the answer back the names the caller used.
   */
  async function readableQuery(scope: DataScope, asked: unknown) {
    const { body, renamed } = await namedQuery(devices, scope, asked);
    const query = validateQuery(body, now());
    await checkMetricsReadable(devices, scope, [...query.metricNames, ...query.savedMetricNames]);
    return { query, body: body as QueryBody, renamed };
  }

  const callerOf = (request: QueryRequest) => ({ tenant: tenantOf(request.scope), cancelled: request.cancelled, rawOnly: request.rawOnly });

  async function tagListing(scope: DataScope, pick: (tags: Record<string, string[]>) => string[]): Promise<string[]> {
    await relay.flush();
    const found = new Set<string>();
    for (const { deviceid: metric } of await readableDevices(devices, scope)) {
      for (const item of pick(await queries.tagsOf(metric))) found.add(item);
    }
    return [...found].sort();
  }

  return {
    identify: (credentials, source) => scopeOf(deps, credentials, source),

    async answer(request, asked) {
      const { query, body, renamed } = await readableQuery(request.scope, asked);
      await relay.flush();
      const prepared = await metrics.timeQuery('datapoints', () => slots.answer(query, body, callerOf(request)));
      const answer = renamed(prepared.answer);
      return answer === prepared.answer ? prepared : { ...prepared, answer, bytesAtMost: answerBytesAtMost(answer) };
    },

    async tags(request, asked) {
      const { query, body, renamed } = await readableQuery(request.scope, asked);
      await relay.flush();
      return renamed(await metrics.timeQuery('tags', () => slots.tags(query, body, callerOf(request))));
    },

    async metricNames(scope, prefix) {
      await relay.flush();
      const readable = new Map((await readableDevices(devices, scope)).map((d) => [d.deviceid, d]));
      const ids = (await queries.metricNames()).filter((name) => readable.has(name));
      const names = scope.kind === 'admin' ? ids : [...ids, ...ids.map((id) => qualifiedName(readable.get(id)!))];
      return names.filter((name) => prefix === undefined || name.startsWith(prefix)).sort();
    },

    tagNames: (scope) => tagListing(scope, (tags) => Object.keys(tags)),
    tagValues: (scope) => tagListing(scope, (tags) => Object.values(tags).flat()),

    async deletePoints(scope, body) {
      const query = validateQuery(body, now());
      await checkMetricsWritable(devices, scope, query.metricNames);
      await relay.flush();
      await eraser.deletePoints(deleteRangesOf(query, body as QueryBody));
    },

    async deleteMetric(scope, metric) {
      await checkMetricsWritable(devices, scope, [metric]);
      await relay.flush();
      await eraser.deleteMetric(metric);
    },
  };
}

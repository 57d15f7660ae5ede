import { Point, StoredSeries, TagFilter } from './point';
import type { ValidatedQuery } from './query/query-model';
import type { QueryAnswer, TagsResponse } from './query/query-response';
import type { QueryRun } from './query/query-run';

/**
 * Points accepted with shadow writes and not yet in the time-series store, oldest first. Durable: what a commit
 * queued survives a restart and an unreachable time-series backend.
 */
export interface PointOutbox {
  /** Up to about `max` of the oldest queued points, and a mark to remove them with once stored. */
  peek(max: number): Promise<{ points: Point[]; upTo: number }>;
  remove(upTo: number): Promise<void>;
}

/**
 * Where points are written. A call is atomic: all of its points are stored, or none. A point with an `expiresAt`
 * (retention.ts) is never read back once it has passed, and one already past is not stored at all.
 */
export interface PointWriter {
  writePoints(points: readonly Point[]): Promise<void>;
}

/** Raw reads for the embedded query engine. */
export interface SeriesSource {
  /**
   * Every series of `metric` whose tags match `filter`, each with its points in [start, end] (inclusive, epoch ms)
   * sorted by time. A (series, timestamp) written twice holds the last value written (KairosDB's rule).
   * Series with no point in the range are left out.
   */
  readSeries(metric: string, filter: TagFilter, start: number, end: number): Promise<StoredSeries[]>;
  /**
   * How many points readSeries with these arguments would read at most, from the store's index alone (no point is
   * decoded): the query engine refuses a read over its budget before it starts (issue 10). Optional: without it the
   * engine counts the points once read.
   */
  countPoints?(metric: string, filter: TagFilter, start: number, end: number): Promise<number>;
  /** Metric names, sorted; only those starting with `prefix` when given. */
  metricNames(prefix?: string): Promise<string[]>;
  /** Tag names and values of a metric's series, e.g. {attr: ['env.temp', 'humid']}. */
  tagsOf(metric: string): Promise<Record<string, string[]>>;
}

/** A query body as the client sent it (a JSON object), beside what validateQuery made of it. */
export type QueryBody = Readonly<Record<string, unknown>>;

/**
 * The read side of the data-store API (/v2/feed), in KairosDB's format: the embedded engine over a SeriesSource, or
 * a KairosDB the service forwards to. Callers validate and authorize first; `body` is the JSON `query` came from,
 * for a backend that speaks KairosDB itself; `run` holds the caller, the budgets and the cancellation (issue 10),
 * the default budgets when absent. Failures of the backend are AppErrors (BACKEND_UNAVAILABLE, ...).
 */
export interface TimeSeriesQueries {
  query(query: ValidatedQuery, body: QueryBody, run?: QueryRun): Promise<QueryAnswer>;
  /** POST /datapoints/query/tags (reference §8). */
  queryTags(query: ValidatedQuery, body: QueryBody, run?: QueryRun): Promise<TagsResponse>;
  /** Metric names, sorted; only those starting with `prefix` when given. */
  metricNames(prefix?: string): Promise<string[]>;
  /** Tag names and values of a metric's series, e.g. {attr: ['env.temp', 'humid']}. */
  tagsOf(metric: string): Promise<Record<string, string[]>>;
}

/** The points of one metric to delete: those of its series matching `tags`, in [start, end] (inclusive, epoch ms). */
export interface PointRange {
  readonly metric: string;
  readonly tags: TagFilter;
  readonly start: number;
  readonly end: number;
}

/**
 * Deleting history (KairosDB's POST /datapoints/delete and DELETE /metric/{name}, reference §8), on the embedded
 * store or KairosDB. Writes acknowledged before a call are deleted by it. A series left without points is forgotten:
 * no longer in metric names or tag listings.
 */
export interface HistoryEraser {
  deletePoints(ranges: readonly PointRange[]): Promise<void>;
  /** Every point of the metric; a metric with no points is no error. */
  deleteMetric(metric: string): Promise<void>;
}

/** Times a query of the data-store API for the service's metrics (openpie_feed_query_duration_seconds). */
export interface QueryTimer {
  timeQuery<T>(kind: 'datapoints' | 'tags', run: () => Promise<T>): Promise<T>;
}

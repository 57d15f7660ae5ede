import { Point, StoredSeries, TagFilter } from './point';
import type { QueryResponse, TagsResponse, ValidatedQuery } from './query';

/** Where points are written. A call is atomic: all of its points are stored, or none. */
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
 * for a backend that speaks KairosDB itself. Failures of the backend are AppErrors (BACKEND_UNAVAILABLE, ...).
 */
export interface TimeSeriesQueries {
  query(query: ValidatedQuery, body: QueryBody): Promise<QueryResponse>;
  /** POST /datapoints/query/tags (reference §8). */
  queryTags(query: ValidatedQuery, body: QueryBody): Promise<TagsResponse>;
  /** Metric names, sorted; only those starting with `prefix` when given. */
  metricNames(prefix?: string): Promise<string[]>;
  /** Tag names and values of a metric's series, e.g. {attr: ['env.temp', 'humid']}. */
  tagsOf(metric: string): Promise<Record<string, string[]>>;
}

import type { PointStream } from './point-stream';

/**
 * The response bodies, key for key in KairosDB's order (reference §5.1, §5.2; MetricsResourceTest compares the
 * exact string). Build them as plain objects and send them with JSON.stringify.
 */

export type GroupByEntry =
  | { readonly name: 'type'; readonly type: string }
  | { readonly name: 'tag'; readonly tags: readonly string[]; readonly group: Readonly<Record<string, string>> }
  | {
      readonly name: 'time';
      readonly range_size: { readonly value: number; readonly unit: string };
      readonly group_count: number;
      readonly group: { readonly group_number: number };
    }
  | { readonly name: 'value'; readonly range_size: number; readonly group: { readonly group_number: number } }
  | { readonly name: 'bin'; readonly bins: readonly number[]; readonly group: { readonly bin_number: number } };

/**
 * `[timestamp, value]`; value null for gaps' null points and for NaN or infinities (fork >= 1.2.25 prints those
 * as null). A js_range array result prints its numbers after the timestamp: `[timestamp, v1, v2, ...]`
 * (DoubleArrayDataPoint writes each value into the point's JSON array).
 */
export type ValuePoint = readonly [number, ...(number | null)[]];

export interface QueryResult {
  readonly name: string;
  /** Absent only for the empty result of a metric that matched no series. */
  readonly group_by?: readonly GroupByEntry[];
  /** Absent when the metric asked for exclude_tags. */
  readonly tags?: Readonly<Record<string, readonly string[]>>;
  readonly values: readonly ValuePoint[];
}

export interface MetricResponse {
  readonly sample_size: number;
  /**
   * From the InscopeMetrics fork 1.2.28, the reference's primary source; upstream KairosDB has only sample_size, so
   * answers forwarded from the KairosDB 1.2.1 backend (TIMESERIES=kairosdb) leave it out.
   */
  readonly keys_scanned?: number;
  readonly results: readonly QueryResult[];
}

export interface QueryResponse {
  readonly queries: readonly MetricResponse[];
}

export interface TagsResult {
  readonly name: string;
  readonly tags: Readonly<Record<string, readonly string[]>>;
  readonly values: readonly [];
}

export interface TagsResponse {
  readonly queries: readonly { readonly results: readonly TagsResult[] }[];
}

/**
 * An answer as the engine hands it to the HTTP layer (issue 10): each result's values may still be the engine's
 * typed arrays (a PointStream), printed only while the answer is sent (response-json.ts), so a large answer never
 * sits in memory as millions of small arrays. A QueryResponse (values as arrays, e.g. from KairosDB) is one too.
 */
export interface QueryAnswer {
  readonly queries: readonly AnswerMetric[];
}

export interface AnswerMetric extends Omit<MetricResponse, 'results'> {
  readonly results: readonly AnswerResult[];
}

export interface AnswerResult extends Omit<QueryResult, 'values'> {
  readonly values: readonly ValuePoint[] | PointStream;
}

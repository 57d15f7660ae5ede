import { QueryBody } from '../../timeseries/port';
import { AggregatorSpec, ValidatedQuery } from '../../timeseries/query';

/**
 * Aggregator names that KairosDB 1.2.x does not register (reference §6.5): `histogram` (percentile's pre-0.9.2 name,
 * kept by the engine) and the kise module's js_*. KairosDB answers 400 "invalid aggregators name" for them.
 */
const ENGINE_ONLY = new Set(['histogram', 'js_function', 'js_filter', 'js_range']);

/** One POST to KairosDB and the metrics of the client's query it carries. */
export interface ForwardedRequest {
  readonly body: Record<string, unknown>;
  /** Indexes into the query's metrics, in the order of the body's `metrics` (and of KairosDB's `queries`). */
  readonly metricIndexes: readonly number[];
}

export interface ForwardedQuery {
  readonly requests: readonly ForwardedRequest[];
  /** Per metric of the query, in order: the aggregators the engine runs over KairosDB's groups (usually none). */
  readonly localChains: readonly (readonly AggregatorSpec[])[];
}

/**
 * What is forwarded to KairosDB for a query that validateQuery accepted (issue 4 §2). It is the client's own body,
 * so KairosDB's 400 messages name the client's members, with these changes:
 * - the range is the one validated, absolute: relative times count from the service's `now`, the one the embedded
 *   engine uses, and a query without an end ends now (KairosDB would leave it unbounded and return future points,
 *   reference §3.3);
 * - `time_zone` is UTC when absent (KairosDB would use its JVM's zone, §3.5);
 * - each aggregator chain is cut before its first aggregator KairosDB lacks; the engine runs that one and every
 *   later one over what KairosDB returns (each takes the previous one's output, §6.3). `exclude_tags` is dropped
 *   from such a metric, since a save_as run here needs the group's tags; the adapter removes them afterwards.
 * Upstream KairosDB 1.2.1 ignores the per-metric `start_absolute`/`end_absolute` that the reference describes for
 * the fork (§3.2, §3.3; found by the differential tests): metrics whose ranges differ go in separate requests, each
 * with its range at the query level.
 */
export function forwardedQuery(body: QueryBody, query: ValidatedQuery): ForwardedQuery {
  const rawMetrics = body.metrics as readonly Record<string, unknown>[];
  const localChains: AggregatorSpec[][] = [];
  const metrics = query.metrics.map((metric, i) => {
    const { start_absolute: _s, end_absolute: _e, ...forwarded } = rawMetrics[i];
    const rawAggregators = Array.isArray(forwarded.aggregators) ? (forwarded.aggregators as unknown[]).map(readableDev) : [];
    if (Array.isArray(forwarded.aggregators)) forwarded.aggregators = rawAggregators;
    const cut = rawAggregators.findIndex((a) => ENGINE_ONLY.has(String((a as Record<string, unknown> | null)?.name)));
    localChains.push(cut < 0 ? [] : metric.aggregators.slice(cut));
    if (cut >= 0) {
      forwarded.aggregators = rawAggregators.slice(0, cut);
      delete forwarded.exclude_tags;
    }
    return forwarded;
  });
  return { requests: byRange(body, query, metrics), localChains };
}

const DEV_RETURN_TYPES = new Set(['value', 'pos_sd', 'neg_sd']);

/**
 * A `dev` aggregator without a `return_type` KairosDB 1.2.1 cannot read: it answers anything but the three exact
 * lower-case names (null too) with 500 "cannot validate null", where the engine, like the fork (reference §6.2),
 * returns the plain deviation. Left out, 1.2.1 returns the plain deviation too (checked against it).
 */
function readableDev(aggregator: unknown): unknown {
  if (typeof aggregator !== 'object' || aggregator === null || (aggregator as { name?: unknown }).name !== 'dev') return aggregator;
  const { return_type: returnType, ...rest } = aggregator as Record<string, unknown>;
  const readable = returnType === undefined || (typeof returnType === 'string' && DEV_RETURN_TYPES.has(returnType));
  return readable ? aggregator : rest;
}

/**
 * The requests of `/datapoints/query/tags` (reference §8): the same metrics and ranges. Aggregators and group_by have
 * no effect there, but KairosDB still validates them, so they are left out (an engine-only name would fail).
 */
export function forwardedTagsQuery(body: QueryBody, query: ValidatedQuery): ForwardedRequest[] {
  const rawMetrics = body.metrics as readonly Record<string, unknown>[];
  const metrics = rawMetrics.map(({ start_absolute: _s, end_absolute: _e, aggregators: _a, group_by: _g, ...rest }) => rest);
  return byRange(body, query, metrics);
}

/** One request per distinct range, metrics in query order within each; the client's other query-level members. */
function byRange(body: QueryBody, query: ValidatedQuery, metrics: Record<string, unknown>[]): ForwardedRequest[] {
  const { start_relative: _sr, end_relative: _er, start_absolute: _sa, end_absolute: _ea, metrics: _m, ...rest } = body;
  const groups = new Map<string, number[]>();
  query.metrics.forEach(({ start, end }, i) => {
    const key = `${start}/${end}`;
    groups.set(key, [...(groups.get(key) ?? []), i]);
  });
  return [...groups.values()].map((indexes) => ({
    body: {
      ...rest,
      start_absolute: query.metrics[indexes[0]].start,
      end_absolute: query.metrics[indexes[0]].end,
      time_zone: body.time_zone ?? 'UTC',
      metrics: indexes.map((i) => metrics[i]),
    },
    metricIndexes: indexes,
  }));
}

import { PointRange, QueryBody } from './port';
import { ValidatedQuery } from './query';

/** The last instant the service's stores and KairosDB both hold (a JS date's limit, in ms). */
export const END_OF_TIME = 8.64e15;

const given = (object: unknown, key: string) =>
  typeof object === 'object' && object !== null && Object.hasOwn(object, key) && (object as Record<string, unknown>)[key] != null;

/**
 * What POST /datapoints/delete deletes (reference §8): for each metric of the query, validated like any query, the
 * points of its series that match its tag filter in its range. Aggregators, group_by, limit and order have no effect.
 * Without an end (neither `end_absolute` nor `end_relative`, nor a metric's own `end_absolute`) the range runs to the
 * end of time, as KairosDB deletes (its end is unbounded); a query of the same body would stop at now.
 */
export function deleteRangesOf(query: ValidatedQuery, body: QueryBody): PointRange[] {
  const openEnded = !given(body, 'end_absolute') && !given(body, 'end_relative');
  const rawMetrics = Array.isArray(body.metrics) ? (body.metrics as unknown[]) : [];
  return query.metrics.map((metric, i) => ({
    metric: metric.name,
    tags: metric.tags,
    start: metric.start,
    end: openEnded && !given(rawMetrics[i], 'end_absolute') ? END_OF_TIME : metric.end,
  }));
}

import { TagFilter } from '../point';
import { TimeSeriesQueries } from '../port';
import { DEFAULT_QUERY_BUDGETS, QueryRun, validateQuery } from '../query';
import { isStream } from '../query/format-result';

/** One series read back: its group's tags and its points, ascending by time. */
export interface ReadSeries {
  readonly tags: Readonly<Record<string, string>>;
  readonly ts: ArrayLike<number>;
  readonly vals: ArrayLike<number>;
}

/** Reads of the service's own, under the default budgets but a longer time (a background job may wait its turn). */
const READ_BUDGETS = { ...DEFAULT_QUERY_BUDGETS, timeoutMs: 60_000 };

/**
 * Points of `metric` in [start, end] (inclusive), one entry per value of the `groupTags`, through either engine's query
 * side (a KairosDB query with a tag grouper and no aggregator answers the raw points): both engines the same way.
 */
export async function readGrouped(
  queries: Pick<TimeSeriesQueries, 'query'>, metric: string, tags: TagFilter, start: number, end: number, groupTags: readonly string[],
): Promise<ReadSeries[]> {
  const body = {
    start_absolute: start,
    end_absolute: end,
    metrics: [{ name: metric, ...(Object.keys(tags).length > 0 ? { tags } : {}), group_by: [{ name: 'tag', tags: groupTags }] }],
  };
  const run = new QueryRun(READ_BUDGETS);
  try {
    const answer = await queries.query(validateQuery(body, Date.now()), body, run);
    const read: ReadSeries[] = [];
    for (const result of answer.queries[0]?.results ?? []) {
      const group = result.group_by?.find((entry) => entry.name === 'tag');
      if (group === undefined || group.name !== 'tag') continue;
      if (isStream(result.values)) read.push({ tags: group.group, ts: result.values.ts, vals: result.values.vals });
      else read.push({ tags: group.group, ts: result.values.map((p) => p[0]), vals: result.values.map((p) => Number(p[1])) });
    }
    return read;
  } finally {
    run.finish();
  }
}

/** The UTC days (their starts) in [start, end] on which `metric` has points: a count per day, the engine's or KairosDB's. */
export async function daysWithPoints(queries: Pick<TimeSeriesQueries, 'query'>, metric: string, start: number, end: number): Promise<number[]> {
  const count = { name: 'count', sampling: { value: 1, unit: 'days' }, align_sampling: true, align_start_time: true };
  const body = { start_absolute: start, end_absolute: end, metrics: [{ name: metric, aggregators: [count] }] };
  const run = new QueryRun(READ_BUDGETS);
  try {
    const answer = await queries.query(validateQuery(body, Date.now()), body, run);
    const days: number[] = [];
    for (const result of answer.queries[0]?.results ?? []) {
      if (isStream(result.values)) days.push(...result.values.ts);
      else days.push(...result.values.map((p) => p[0]));
    }
    return days;
  } finally {
    run.finish();
  }
}

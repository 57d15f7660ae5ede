import { PointWriter, SeriesSource } from '../port';
import { runAggregators } from './aggregator-chain';
import { checkEstimates } from './estimate-query';
import { fetchSeries } from './fetch-series';
import { answerPointCount, formatResult, materializeAnswer, unionTags } from './format-result';
import { groupByTag } from './group-by-tag';
import { splitByGroupers, ValueGrouper } from './group-by-value';
import { mergeSeries } from './merge-series';
import { EMPTY_STREAM, PointStream, sliceStream } from './point-stream';
import { MetricQuery, ValidatedQuery } from './query-model';
import { AnswerMetric, AnswerResult, GroupByEntry, QueryAnswer, QueryResponse, TagsResponse } from './query-response';
import { QueryRun } from './query-run';
import { ScriptSandbox } from './script-port';

export interface QueryDeps {
  readonly source: SeriesSource;
  readonly sandbox: ScriptSandbox;
  /** Where save_as writes (the same store). */
  readonly writer: PointWriter;
}

/**
 * Runs a validated query: one `queries[]` entry per metric, in request order (reference §4, §5.1), within the run's
 * budgets (issue 10). The values stay typed arrays until the answer is printed (response-json.ts).
 */
export async function executeQueryAnswer(query: ValidatedQuery, deps: QueryDeps, run: QueryRun): Promise<QueryAnswer> {
  checkEstimates(query, run.budgets);
  const queries: AnswerMetric[] = [];
  for (const metric of query.metrics) queries.push(await executeMetric(metric, deps, run));
  return { queries };
}

/** executeQueryAnswer with every value as an array of points (as JSON.parse of the answer would give). */
export async function executeQuery(query: ValidatedQuery, deps: QueryDeps, run?: QueryRun): Promise<QueryResponse> {
  const ownRun = run ?? new QueryRun();
  try {
    return materializeAnswer(await executeQueryAnswer(query, deps, ownRun));
  } finally {
    if (run === undefined) ownRun.finish();
  }
}

const TYPE_ENTRY: GroupByEntry = { name: 'type', type: 'number' };

/**
 * One metric (reference §4): fetch with the per-row limit, group by type and tag, merge each group, split it by
 * the time/value/bin groupers, keep the first `limit` points of each final group, run the aggregators.
 */
async function executeMetric(metric: MetricQuery, deps: QueryDeps, run: QueryRun): Promise<AnswerMetric> {
  const fetched = await fetchSeries(deps.source, metric, run);
  const valueGroupers = metric.groupBy.filter((g): g is ValueGrouper => g.name !== 'tag');
  const results: AnswerResult[] = [];
  const finish = async (stream: PointStream, entries: readonly GroupByEntry[], tags: ReadonlyMap<string, readonly string[]>) => {
    const limited = metric.limit > 0 && stream.ts.length > metric.limit ? sliceStream(stream, 0, metric.limit) : stream;
    const aggregated = await runAggregators(limited, metric.aggregators, {
      sandbox: deps.sandbox, writer: deps.writer, metric: metric.name, groupTags: tags, run,
    });
    run.countReturned(answerPointCount(aggregated));
    results.push(formatResult(metric.name, entries, tags, metric.excludeTags, aggregated));
  };

  if (fetched.series.length === 0) {
    // No series: one empty group without group_by (§4.3 step 4) that the aggregators still see (gaps fills it);
    // with a time, value or bin grouper an empty group has no sub-groups, so no result at all (§4.4).
    if (valueGroupers.length === 0) {
      run.countGroups();
      await finish(EMPTY_STREAM, [], new Map());
    }
  } else {
    for (const group of groupByTag(fetched.series, metric.groupBy)) {
      const merged = await mergeSeries(group.series, metric.order, run);
      const tags = unionTags(group.series);
      const parentEntries: GroupByEntry[] = group.tagResult === undefined
        ? [TYPE_ENTRY]
        : [{ name: 'tag', tags: group.tagResult.tags, group: Object.fromEntries(group.tagResult.group) }, TYPE_ENTRY];
      if (valueGroupers.length === 0) {
        run.countGroups();
        await finish(merged, parentEntries, tags);
      } else {
        for (const sub of await splitByGroupers(merged, valueGroupers, run)) await finish(sub.stream, [...sub.entries, ...parentEntries], tags);
      }
    }
  }
  return { sample_size: fetched.sampleSize, keys_scanned: fetched.keysScanned, results };
}

/**
 * POST /datapoints/query/tags (reference §5.2, §8): per metric, one result with the tags of the series that match
 * the filter and have points in the range, and no values. group_by, aggregators and exclude_tags have no effect.
 * It reads the points of the range like a query, so it is held to the same scan budget.
 */
export async function executeTagsQuery(query: ValidatedQuery, source: SeriesSource, run?: QueryRun): Promise<TagsResponse> {
  const ownRun = run ?? new QueryRun();
  try {
    const queries: TagsResponse['queries'][number][] = [];
    for (const metric of query.metrics) {
      const { series } = await fetchSeries(source, { ...metric, limit: 0 }, ownRun);
      queries.push({ results: [{ name: metric.name, tags: Object.fromEntries(unionTags(series)), values: [] }] });
    }
    return { queries };
  } finally {
    if (run === undefined) ownRun.finish();
  }
}

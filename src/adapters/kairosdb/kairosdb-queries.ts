import type * as t from 'io-ts';
import type { Logger } from 'pino';
import { AppError } from '../../core/errors';
import { PointWriter, TimeSeriesQueries } from '../../timeseries/port';
import {
  aggregateValues, AggregatorSpec, MetricQuery, QueryResponse, QueryResult, QueryRun, ScriptSandbox, TagsResponse,
} from '../../timeseries/query';
import { decodeAnswer, failureOf, KairosDbClient } from './kairosdb-client';
import { NamesBody, QueryResponseBody, TagsResponseBody } from './kairosdb-codecs';
import { forwardedQuery, forwardedTagsQuery } from './kairosdb-query-body';

export interface KairosDbQueriesDeps {
  readonly client: KairosDbClient;
  readonly logger: Logger;
  /** For the js_* aggregators the engine runs over KairosDB's answer. */
  readonly sandbox: ScriptSandbox;
  /** Where a save_as that runs in the engine writes (after a js_* aggregator). */
  readonly writer: PointWriter;
}

/** Every instant KairosDB and the engine share (a JS date's range), for "all the series of a metric". */
const ALL_TIME = { start_absolute: -8.64e15, end_absolute: 8.64e15 };

type MetricAnswer = QueryResponseBody['queries'][number];

/**
 * The data-store API over KairosDB (issue 4 §2). Queries arrive validated by the engine's rules and are forwarded
 * (kairosdb-query-body.ts); the aggregators KairosDB lacks run in the engine over the groups KairosDB returns.
 * KairosDB's answers are decoded at the edge (kairosdb-codecs.ts) and its failures translated (failureOf).
 */
export function createKairosDbQueries(deps: KairosDbQueriesDeps): TimeSeriesQueries {
  const { client, logger } = deps;

  /** `run` bounds the request: its signal ends it, and KairosDB's answer may not be larger than the run's answer. */
  const post = async <A>(path: string, body: unknown, what: string, codec: t.Decoder<unknown, A>, run?: QueryRun): Promise<A> => {
    const res = await client.request('POST', path, {
      data: body,
      ...(run === undefined ? {} : { signal: run.signal, maxResponseBytes: run.budgets.maxResponseBytes }),
    });
    if (res.status !== 200) throw failureOf(res, what, logger);
    return decodeAnswer(codec, res, what, logger);
  };

  async function finishMetric(answer: MetricAnswer, metric: MetricQuery, chain: readonly AggregatorSpec[], run?: QueryRun) {
    // keys_scanned comes only from the InscopeMetrics fork (>= 1.2.28); upstream 1.2.1 leaves it out.
    const head = { sample_size: answer.sample_size, ...(answer.keys_scanned === undefined ? {} : { keys_scanned: answer.keys_scanned }) };
    if (chain.length === 0) return { ...head, results: answer.results };
    const results: QueryResult[] = [];
    for (const result of answer.results) {
      const groupTags = new Map(Object.entries(result.tags ?? {}));
      const values = await aggregateValues(result.values, chain, {
        sandbox: deps.sandbox, writer: deps.writer, metric: metric.name, groupTags, run,
      });
      results.push({
        name: result.name,
        ...(result.group_by === undefined ? {} : { group_by: result.group_by }),
        ...(metric.excludeTags || result.tags === undefined ? {} : { tags: result.tags }),
        values,
      });
    }
    return { ...head, results };
  }

  return {
    async query(query, body, run): Promise<QueryResponse> {
      const forwarded = forwardedQuery(body, query);
      const answers: MetricAnswer[] = [];
      for (const request of forwarded.requests) {
        const answer = await post('/datapoints/query', request.body, 'query', QueryResponseBody, run);
        placeAnswers(answer.queries, request.metricIndexes, answers);
      }
      const queries = [];
      for (const [i, metric] of query.metrics.entries()) {
        queries.push(await finishMetric(answers[i], metric, forwarded.localChains[i], run));
      }
      return { queries };
    },

    async queryTags(query, body, run): Promise<TagsResponse> {
      const answers: TagsResponseBody['queries'] = [];
      for (const request of forwardedTagsQuery(body, query)) {
        const answer = await post('/datapoints/query/tags', request.body, 'tags query', TagsResponseBody, run);
        placeAnswers(answer.queries, request.metricIndexes, answers);
      }
      return {
        queries: answers.map((q) => ({ results: q.results.map((r) => ({ name: r.name, tags: r.tags, values: [] as const })) })),
      };
    },

    async metricNames(prefix) {
      const res = await client.request('GET', '/metricnames', { params: prefix === undefined ? {} : { prefix } });
      if (res.status !== 200) throw failureOf(res, 'metric names', logger);
      // KairosDB lists them in Cassandra's byte order; the port promises the engine's (JS string) order.
      return decodeAnswer(NamesBody, res, 'metric names', logger).results.sort();
    },

    async tagsOf(metric) {
      // KairosDB's /tagnames and /tagvalues are global and, on Cassandra, always empty in 1.2.x (reference §8): the
      // tags of one metric come from a tags query over all time.
      const answer = await post('/datapoints/query/tags', { ...ALL_TIME, metrics: [{ name: metric }] }, 'tags query', TagsResponseBody);
      const tags = answer.queries[0]?.results[0]?.tags ?? {};
      return Object.fromEntries(Object.keys(tags).sort().map((name) => [name, [...tags[name]].sort()]));
    },
  };
}

/** Puts the answers of one request at their metrics' places; KairosDB answers one entry per metric sent. */
function placeAnswers<A>(answers: readonly A[], indexes: readonly number[], into: A[]): void {
  if (answers.length !== indexes.length) {
    throw new AppError('BACKEND_ERROR', `the time-series backend (KairosDB) answered ${answers.length} metrics for ${indexes.length}`);
  }
  indexes.forEach((index, k) => {
    into[index] = answers[k];
  });
}

/**
 * The embedded KairosDB-compatible query engine (issue 3 §3; reference sections 3 to 7).
 *
 * HTTP usage (POST /v2/feed/api/v1/datapoints/query):
 *   const query = validateQuery(body, Date.now());           // throws KairosQueryError (400)
 *   authorize(query.metricNames, query.savedMetricNames);    // 403 for a metric outside the caller's scope
 *   ctx.body = await executeQuery(query, { source, sandbox, writer });
 * and render a KairosQueryError as `ctx.status = err.status; ctx.body = { errors: err.errors }`.
 */
export { validateQuery } from './validate-query';
export { executeQuery, executeTagsQuery } from './execute-query';
export { runQuery, runTagsQuery } from './run-query';
export { aggregateValues } from './aggregate-values';
export { KairosQueryError, kairosErrorBody } from './kairos-query-error';
export type { QueryDeps } from './execute-query';
export type { ChainContext } from './aggregator-chain';
export type { RunQueryDeps } from './run-query';
export type { ScriptSandbox } from './script-port';
export type { ValidatedQuery, MetricQuery, AggregatorSpec, GroupBySpec } from './query-model';
export type { QueryResponse, TagsResponse, QueryResult, GroupByEntry, ValuePoint } from './query-response';

/**
 * The embedded KairosDB-compatible query engine (issue 3 §3; reference sections 3 to 7).
 *
 * HTTP usage (POST /v2/feed/api/v1/datapoints/query):
 *   const query = validateQuery(body, Date.now());           // throws KairosQueryError (400)
 *   authorize(query.metricNames, query.savedMetricNames);    // 403 for a metric outside the caller's scope
 *   const run = new QueryRun(budgets, { tenant, cancelled }); // issue 10: budgets, pacing, cancellation
 *   const answer = await executeQueryAnswer(query, { source, sandbox, writer }, run);
 *   send(answerJson(answer));                                // printed piece by piece
 * A KairosQueryError is an AppError (400) whose body carries KairosDB's `errors` list; a query over a budget is an
 * AppError QUERY_TOO_LARGE (413) or QUERY_TIMEOUT (400) carrying one too.
 */
export { validateQuery } from './validate-query';
export { executeQuery, executeQueryAnswer, executeTagsQuery } from './execute-query';
export { runQuery, runTagsQuery } from './run-query';
export { aggregateValues } from './aggregate-values';
export { KairosQueryError } from './kairos-query-error';
export { checkEstimates } from './estimate-query';
export { answerBytes, answerBytesAtMost, answerJson } from './response-json';
export { materializeAnswer } from './format-result';
export { BUDGET_VARIABLES, DEFAULT_QUERY_BUDGETS, overBudgetError, QueryCancelledError, QueryRun } from './query-run';
export type { QueryBudgets, QueryRunOptions } from './query-run';
export type { QueryDeps } from './execute-query';
export type { ChainContext } from './aggregator-chain';
export type { RunQueryDeps } from './run-query';
export type { SandboxCall, ScriptSandbox } from './script-port';
export type { ValidatedQuery, MetricQuery, AggregatorSpec, GroupBySpec } from './query-model';
export type {
  AnswerMetric, AnswerResult, QueryAnswer, QueryResponse, TagsResponse, QueryResult, GroupByEntry, ValuePoint,
} from './query-response';

import { PointWriter, SeriesSource } from '../port';
import { executeQuery, executeTagsQuery } from './execute-query';
import { QueryResponse, TagsResponse } from './query-response';
import { ScriptSandbox } from './script-port';
import { validateQuery } from './validate-query';

export interface RunQueryDeps {
  readonly source: SeriesSource;
  readonly sandbox: ScriptSandbox;
  readonly writer: PointWriter;
  /** Epoch ms: the end when the query gives none, the base of relative times, the end of gaps. */
  readonly now: number;
}

/**
 * POST /datapoints/query in one call: validate, then execute. Callers that must authorize the metrics first use
 * validateQuery and executeQuery separately.
 */
export async function runQuery(body: unknown, deps: RunQueryDeps): Promise<QueryResponse> {
  return executeQuery(validateQuery(body, deps.now), deps);
}

/** POST /datapoints/query/tags in one call: same body and validation as a query (reference §8). */
export async function runTagsQuery(body: unknown, deps: Pick<RunQueryDeps, 'source' | 'now'>): Promise<TagsResponse> {
  return executeTagsQuery(validateQuery(body, deps.now), deps.source);
}

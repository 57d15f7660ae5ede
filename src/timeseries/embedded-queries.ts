import { QueryDeps, executeQuery, executeTagsQuery } from './query';
import { TimeSeriesQueries } from './port';

/** The data-store API over the embedded engine: executeQuery on the service's own SeriesSource. */
export function createEmbeddedQueries(deps: QueryDeps): TimeSeriesQueries {
  return {
    query: (query) => executeQuery(query, deps),
    queryTags: (query) => executeTagsQuery(query, deps.source),
    metricNames: (prefix) => deps.source.metricNames(prefix),
    tagsOf: (metric) => deps.source.tagsOf(metric),
  };
}

import { QueryDeps, executeQueryAnswer, executeTagsQuery, QueryRun } from './query';
import { TimeSeriesQueries } from './port';

/** The data-store API over the embedded engine: executeQueryAnswer on the service's own SeriesSource. */
export function createEmbeddedQueries(deps: QueryDeps): TimeSeriesQueries {
  return {
    async query(query, _body, run) {
      const ownRun = run ?? new QueryRun();
      try {
        return await executeQueryAnswer(query, deps, ownRun);
      } finally {
        if (run === undefined) ownRun.finish();
      }
    },
    queryTags: (query, _body, run) => executeTagsQuery(query, deps.source, run),
    metricNames: (prefix) => deps.source.metricNames(prefix),
    tagsOf: (metric) => deps.source.tagsOf(metric),
  };
}

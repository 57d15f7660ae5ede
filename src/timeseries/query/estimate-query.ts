import { AggregatorSpec, ValidatedQuery } from './query-model';
import { overBudgetError, QueryBudgets } from './query-run';
import { gapsBucketsAtLeast } from './range-buckets';

/**
 * What can be known of a query's answer before a point is read (issue 10 §1: "checked before building the
 * answer"): a lower bound of the points it returns, from the sampling and range of its `gaps` aggregators, which
 * give one point per range whether or not the store holds any. A query certain to go over QUERY_MAX_POINTS_RETURNED
 * is refused at once, before it queues, reads or computes anything. Everything else is counted while it runs.
 */
export function checkEstimates(query: ValidatedQuery, budgets: QueryBudgets): void {
  const tooMany = () => overBudgetError('maxPointsReturned', budgets.maxPointsReturned);
  let points = 0;
  for (const metric of query.metrics) {
    const { atLeast, largestGaps } = chainPointsAtLeast(metric.aggregators);
    // A gaps stream may not outgrow a whole answer even when a later aggregator shrinks it (markGaps).
    if (largestGaps > budgets.maxPointsReturned) throw tooMany();
    // Without a time, value or bin grouper a metric always has a group, even with no series (§4.3 step 4).
    if (metric.groupBy.some((g) => g.name !== 'tag')) continue;
    points += atLeast;
    if (points > budgets.maxPointsReturned) throw tooMany();
  }
}

/** A lower bound of the points a chain leaves in a group (0 when nothing is certain), and of its largest gaps. */
function chainPointsAtLeast(chain: readonly AggregatorSpec[]): { atLeast: number; largestGaps: number } {
  let atLeast = 0;
  let largestGaps = 0;
  for (const aggregator of chain) {
    if (aggregator.name === 'gaps') {
      const buckets = gapsBucketsAtLeast(aggregator.range);
      largestGaps = Math.max(largestGaps, buckets);
      atLeast = Math.max(atLeast, buckets);
    } else if (aggregator.name === 'trim') {
      atLeast = Math.max(0, atLeast - 2);
    } else if (aggregator.name !== 'save_as') {
      atLeast = 0;
    }
  }
  return { atLeast, largestGaps };
}

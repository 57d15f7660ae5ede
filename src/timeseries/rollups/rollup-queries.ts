import { formatTtl } from '../durations';
import { TimeSeriesQueries } from '../port';
import { QueryAnswer, QueryRun, ValidatedQuery } from '../query';
import { builtFrom, RollupMaintainer } from './maintainer';
import { MetricPlan, planMetric } from './plan';
import { answerFromTier } from './tier-answer';

/** A query answered from tiers, and which (`1h`, or `1h,1m` when its metrics used different ones). */
export interface TierServed {
  readonly answer: QueryAnswer;
  readonly tiers: string;
}

export interface RollupQueries {
  /** The answer from tiers when every metric of the query can be answered exactly from one (plan.ts); else undefined. */
  tryAnswer(query: ValidatedQuery, run: QueryRun): Promise<TierServed | undefined>;
}

export interface RollupQueriesDeps {
  maintainer: Pick<RollupMaintainer, 'declarationOfDevice' | 'pending'>;
  queries: Pick<TimeSeriesQueries, 'query'>;
  keysScanned: boolean;
  now: () => number;
}

export function createRollupQueries({ maintainer, queries, keysScanned, now }: RollupQueriesDeps): RollupQueries {
  async function planOf(metric: ValidatedQuery['metrics'][number]): Promise<MetricPlan | undefined> {
    const declared = await maintainer.declarationOfDevice(metric.name);
    const declaration = declared?.declaration;
    // A tier answers only once built: before, the history it should summarize may be missing from it.
    if (declaration === undefined || declaration.builtAt === undefined) return undefined;
    const coverage = declaration.tiers.map((tier) => ({
      tier,
      from: Math.max(builtFrom(declaration), tier.retentionMs === undefined ? -Infinity : now() - tier.retentionMs),
    }));
    return planMetric(metric, coverage);
  }

  return {
    async tryAnswer(query, run) {
      if (query.metrics.length === 0) return undefined;
      const plans: MetricPlan[] = [];
      for (const metric of query.metrics) {
        const plan = await planOf(metric);
        if (plan === undefined) return undefined;
        plans.push(plan);
      }
      const deps = { queries, pending: maintainer.pending, keysScanned };
      const answers = [];
      for (const plan of plans) answers.push(await answerFromTier(plan, deps, run));
      const tiers = [...new Set(plans.map((plan) => formatTtl(plan.tier.periodMs)))].join(',');
      return { answer: { queries: answers }, tiers };
    },
  };
}

import { AppError } from '../core/errors';
import { createFairSlots, SlotRefusedError } from '../ratelimit/fair-slots';
import { QueryLimits } from './limits';
import { QueryBody, TimeSeriesQueries } from './port';
import {
  answerBytes, answerBytesAtMost, checkEstimates, overBudgetError, QueryAnswer, QueryRun, TagsResponse, ValidatedQuery,
} from './query';
import { answerPointCount, isStream } from './query/format-result';
import type { RollupQueries } from './rollups/rollup-queries';

/**
 * The data-store queries as a shared resource (issue 10 §1): a query certain to be over budget is refused before it
 * waits for anything; the others take one of QUERY_CONCURRENCY slots, at most QUERY_CONCURRENCY_PER_CALLER per
 * caller (a user token's project, a device's group), waiting their turn fairly or refused with 429; each runs under
 * its budgets; an answer over QUERY_MAX_POINTS_RETURNED or QUERY_MAX_RESPONSE_BYTES is refused before a byte of it
 * is sent. The same holds whichever backend answers (TIMESERIES), with what each can check (docs/data-store.md).
 */

export interface QueryCaller {
  /** `project:<id>` (user token) or `group:<project>/<group>` (device): whose slots the query takes. */
  readonly tenant: string;
  /** Aborted when the client goes away: the query stops waiting or running. */
  readonly cancelled: AbortSignal;
  /** Never answered from roll-up tiers (`X-Openpie-Rollup: off`): raw points only. */
  readonly rawOnly?: boolean;
}

export interface PreparedAnswer {
  readonly answer: QueryAnswer;
  /** At least the answer's size in bytes, known without printing it (answerBytesAtMost). */
  readonly bytesAtMost: number;
  /** Frees the caller's slot: call it once the answer is sent or the client is gone. Idempotent. */
  readonly release: () => void;
  /** The roll-up tiers that answered (`1h`), when they did (rollups/plan.ts); absent for raw answers. */
  readonly rollup?: string;
}

export interface DataQueries {
  /** POST /datapoints/query: the answer, within budget, holding its slot until `release`. */
  answer(query: ValidatedQuery, body: QueryBody, caller: QueryCaller): Promise<PreparedAnswer>;
  /** POST /datapoints/query/tags. */
  tags(query: ValidatedQuery, body: QueryBody, caller: QueryCaller): Promise<TagsResponse>;
  /** Queries running and waiting, over every caller. */
  stats(): { readonly running: number; readonly waiting: number };
}

/** Seconds a refused caller is told to wait: about the time a typical query holds its slot. */
const RETRY_AFTER_SECONDS = 1;

export function createDataQueries(queries: TimeSeriesQueries, limits: QueryLimits, rollups?: RollupQueries): DataQueries {
  const slots = createFairSlots({
    slots: limits.concurrency,
    perTenant: limits.perCaller,
    queuePerTenant: limits.queuePerCaller,
    maxWaitMs: limits.queueTimeoutMs,
  });
  const { budgets } = limits;

  async function takeSlot(caller: QueryCaller): Promise<() => void> {
    try {
      return await slots.acquire(caller.tenant, caller.cancelled);
    } catch (err) {
      if (!(err instanceof SlotRefusedError)) throw err;
      const why = err.reason === 'queue-full'
        ? `your queries fill their ${limits.perCaller} slots and ${limits.queuePerCaller} places in the queue ` +
          '(QUERY_CONCURRENCY_PER_CALLER, QUERY_QUEUE_PER_CALLER)'
        : `no query slot came free within ${limits.queueTimeoutMs} ms (QUERY_QUEUE_TIMEOUT_MS)`;
      const message = `${why}; retry after ${RETRY_AFTER_SECONDS} s`;
      throw new AppError('TOO_MANY_QUERIES', message, { errors: [message], retryAfter: RETRY_AFTER_SECONDS });
    }
  }

  /** Runs `work` in a slot of the caller's, under a run of its own; the slot is freed unless `keep` says not yet. */
  async function inSlot<T>(caller: QueryCaller, work: (run: QueryRun) => Promise<T>, keep: (result: T) => boolean): Promise<{ result: T; release: () => void }> {
    const release = await takeSlot(caller);
    const run = new QueryRun(budgets, { tenant: caller.tenant, cancelled: caller.cancelled });
    let kept = false;
    try {
      const result = await work(run);
      kept = keep(result);
      return { result, release };
    } finally {
      run.finish();
      if (!kept) release();
    }
  }

  return {
    async answer(query, body, caller) {
      checkEstimates(query, budgets);
      const { result, release } = await inSlot(caller, async (run) => {
        const served = caller.rawOnly || rollups === undefined ? undefined : await rollups.tryAnswer(query, run);
        const answer = served?.answer ?? await queries.query(query, body, run);
        // The engine counts as it goes; an answer from KairosDB is counted here.
        if (answerPoints(answer) > budgets.maxPointsReturned) throw overBudgetError('maxPointsReturned', budgets.maxPointsReturned);
        const bytesAtMost = answerBytesAtMost(answer);
        if (bytesAtMost > budgets.maxResponseBytes && (await answerBytes(answer, run)) > budgets.maxResponseBytes) {
          throw overBudgetError('maxResponseBytes', budgets.maxResponseBytes);
        }
        return { answer, bytesAtMost, ...(served === undefined ? {} : { rollup: served.tiers }) };
      }, () => true);
      return { ...result, release };
    },

    async tags(query, body, caller) {
      const { result } = await inSlot(caller, (run) => queries.queryTags(query, body, run), () => false);
      return result;
    },

    stats: () => slots.stats(),
  };
}

function answerPoints(answer: QueryAnswer): number {
  let points = 0;
  for (const metric of answer.queries) {
    for (const result of metric.results) {
      if (isStream(result.values)) points += answerPointCount(result.values);
      else for (const p of result.values) points += Math.max(1, p.length - 1);
    }
  }
  return points;
}

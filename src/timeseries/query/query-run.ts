import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { AppError } from '../../core/errors';

/**
 * One run of a data-store query (issue 10 §1): whose it is, the budgets it runs under, the points and groups it has
 * used, and its end (its client went away, or it ran out of time). The engine calls `pace()` in its long loops: the
 * run then checks its budgets and hands the event loop back to other requests every SLICE_MS, so that one large
 * query never holds the process for long.
 */

export interface QueryBudgets {
  /** Points the store reads for one query (every block a read touches counts whole). */
  readonly maxPointsScanned: number;
  /** Points in the answer, over every group (a js_range array point counts once per number). */
  readonly maxPointsReturned: number;
  /** Bytes of the answer's JSON. */
  readonly maxResponseBytes: number;
  /** Groups (result objects) in the answer. */
  readonly maxGroups: number;
  /** Wall-clock time from the start of the run, queueing for the script sandbox included. */
  readonly timeoutMs: number;
}

/** The variable that sets each budget (docs/limits-and-errors.md): errors name it, so a caller knows which one. */
export const BUDGET_VARIABLES: { readonly [K in keyof QueryBudgets]: string } = {
  maxPointsScanned: 'QUERY_MAX_POINTS_SCANNED',
  maxPointsReturned: 'QUERY_MAX_POINTS_RETURNED',
  maxResponseBytes: 'QUERY_MAX_RESPONSE_BYTES',
  maxGroups: 'QUERY_MAX_GROUPS',
  timeoutMs: 'QUERY_TIMEOUT_MS',
};

const MiB = 1024 * 1024;

/**
 * The budgets a query runs under unless the operator sets others (src/config/variables.ts reads the variables). Sized
 * for a small node: 2 million points scanned are about 32 MiB of arrays, and a million points answered about 20 MiB
 * of JSON; docs/limits-and-errors.md says how to raise them.
 */
export const DEFAULT_QUERY_BUDGETS: QueryBudgets = Object.freeze({
  maxPointsScanned: 2_000_000,
  maxPointsReturned: 1_000_000,
  maxResponseBytes: 32 * MiB,
  maxGroups: 10_000,
  timeoutMs: 10_000,
});

/**
 * How long the engine computes before it lets other requests in. Each running query adds at most this much to the
 * wait of a request that arrives meanwhile.
 */
export const SLICE_MS = 8;

/** How many buckets or points the engine's loops handle between two calls of pace(): a few hundred µs of work. */
export const PACE_EVERY = 1024;

const ADVICE: { readonly [K in keyof QueryBudgets]: string } = {
  maxPointsScanned: 'the query would read more than {limit} points ({budget}): narrow the range, the tags or the metrics',
  maxPointsReturned: 'the answer would hold more than {limit} points ({budget}): narrow the range, use a larger sampling or fewer groups',
  maxResponseBytes: 'the answer would be larger than {limit} bytes ({budget}): narrow the range or use a larger sampling',
  maxGroups: 'the answer would hold more than {limit} groups ({budget}): group by fewer or wider ranges',
  timeoutMs: 'the query ran longer than its budget of {limit} ms ({budget}): narrow the range or simplify the aggregators',
};

/** The refusal of a query over one of its budgets, in KairosDB's style (`errors`), naming the budget's variable. */
export function overBudgetError(name: keyof QueryBudgets, limit: number): AppError {
  const budget = BUDGET_VARIABLES[name];
  const message = ADVICE[name].replace('{limit}', String(limit)).replace('{budget}', budget);
  return new AppError(name === 'timeoutMs' ? 'QUERY_TIMEOUT' : 'QUERY_TOO_LARGE', message, { errors: [message], budget, limit });
}

/** The run ended because its client went away: nobody is left to answer (the HTTP layer answers nothing). */
export class QueryCancelledError extends Error {
  constructor() {
    super('the client went away before the query was answered');
    this.name = 'QueryCancelledError';
  }
}

export interface QueryRunOptions {
  /** Whose query (`project:<id>` for a user token, `group:<project>/<group>` for a device): the sandbox's fairness key. */
  readonly tenant?: string;
  /** Aborted when the client goes away. */
  readonly cancelled?: AbortSignal;
}

export class QueryRun {
  readonly tenant: string;
  /** Aborted when the client goes away or the time budget is spent; `reason` is the error to end with. */
  readonly signal: AbortSignal;
  private readonly ended = new AbortController();
  private readonly deadline: number;
  private readonly timer: NodeJS.Timeout | undefined;
  private sliceEnd = performance.now() + SLICE_MS;
  private scanned = 0;
  private returned = 0;
  private groups = 0;

  constructor(readonly budgets: QueryBudgets = DEFAULT_QUERY_BUDGETS, options: QueryRunOptions = {}) {
    this.tenant = options.tenant ?? 'anyone';
    this.deadline = performance.now() + budgets.timeoutMs;
    this.timer = setTimeout(() => this.ended.abort(overBudgetError('timeoutMs', budgets.timeoutMs)), budgets.timeoutMs);
    this.timer.unref();
    const cancelled = options.cancelled;
    if (cancelled !== undefined) {
      const onCancel = () => this.ended.abort(new QueryCancelledError());
      if (cancelled.aborted) onCancel();
      else cancelled.addEventListener('abort', onCancel, { once: true });
    }
    this.signal = this.ended.signal;
  }

  /** Throws the run's end (cancelled, or out of time) if it has come. Synchronous: for loops that cannot yield. */
  checkpoint(): void {
    if (this.signal.aborted) throw this.signal.reason;
    if (performance.now() > this.deadline) {
      this.ended.abort(overBudgetError('timeoutMs', this.budgets.timeoutMs));
      throw this.signal.reason;
    }
  }

  /** checkpoint(), and once the current slice is spent, one turn of the event loop for other requests. */
  async pace(): Promise<void> {
    this.checkpoint();
    if (performance.now() < this.sliceEnd) return;
    await nextTurn();
    this.checkpoint();
    this.sliceEnd = performance.now() + SLICE_MS;
  }

  /** Before a read: refuses one that would scan more than the budget has left. */
  expectScan(points: number): void {
    if (this.scanned + points > this.budgets.maxPointsScanned) throw overBudgetError('maxPointsScanned', this.budgets.maxPointsScanned);
  }

  countScanned(points: number): void {
    this.expectScan(points);
    this.scanned += points;
  }

  countReturned(points: number): void {
    this.returned += points;
    if (this.returned > this.budgets.maxPointsReturned) throw overBudgetError('maxPointsReturned', this.budgets.maxPointsReturned);
  }

  /** Throws when one stream in the making already holds more points than a whole answer may. */
  checkStreamSize(points: number): void {
    if (points > this.budgets.maxPointsReturned) throw overBudgetError('maxPointsReturned', this.budgets.maxPointsReturned);
  }

  countGroups(count = 1): void {
    this.groups += count;
    if (this.groups > this.budgets.maxGroups) throw overBudgetError('maxGroups', this.budgets.maxGroups);
  }

  /** Ends the run's timer; idempotent. */
  finish(): void {
    clearTimeout(this.timer);
  }
}

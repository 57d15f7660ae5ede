import { DEFAULT_QUERY_BUDGETS, QueryBudgets } from './query/query-run';

/** Limits of the data-store API, named in docs/limits-and-errors.md ("Limits"). */
export const QUERY_LIMITS = {
  /** Bytes of one query body. Larger -> 413 PAYLOAD_TOO_LARGE. */
  maxBodyBytes: 1024 * 1024,
} as const;

/** The data-store queries' settings (QUERY_* variables, issue 10): budgets, and the slots every caller shares. */
export interface QueryLimits {
  readonly budgets: QueryBudgets;
  /** Queries running at once, over every caller. */
  readonly concurrency: number;
  /** Queries one caller may run at once. */
  readonly perCaller: number;
  /** Queries one caller may have waiting for a slot; beyond it 429 TOO_MANY_QUERIES. */
  readonly queuePerCaller: number;
  /** How long a query may wait for a slot before 429 TOO_MANY_QUERIES. */
  readonly queueTimeoutMs: number;
}

/** QUERY_* when unset. */
export const DEFAULT_QUERY_LIMITS: QueryLimits = Object.freeze({
  budgets: DEFAULT_QUERY_BUDGETS,
  concurrency: 8,
  perCaller: 2,
  queuePerCaller: 8,
  queueTimeoutMs: 10_000,
});

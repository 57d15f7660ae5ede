import { TagFilter } from '../point';

/**
 * The validated query: what validateQuery returns and executeQuery runs. Every value here has passed KairosDB's
 * rules (reference §3), so the execution code trusts it.
 */

/** KairosDB's TimeUnit enum, in its declaration order (the order of the "must be one of" message). */
export const TIME_UNITS = ['MILLISECONDS', 'SECONDS', 'MINUTES', 'HOURS', 'DAYS', 'WEEKS', 'MONTHS', 'YEARS'] as const;
export type TimeUnit = (typeof TIME_UNITS)[number];

export interface Duration {
  readonly value: number;
  readonly unit: TimeUnit;
}

export type Order = 'asc' | 'desc';

/** Parameters shared by the range aggregators (reference §6.1). */
export interface RangeOptions {
  readonly sampling: Duration;
  readonly alignSampling: boolean;
  readonly alignStartTime: boolean;
  readonly alignEndTime: boolean;
  /** The anchor before alignment; the query start unless `start_time` overrides it. Also where `gaps` starts. */
  readonly startTime: number;
  /** Where `gaps` stops: the query end or `end_time`, capped at now (RangeAggregator.setEndTime). */
  readonly endTime: number;
  readonly timeZone: string;
}

export type DevReturnType = 'value' | 'pos_sd' | 'neg_sd';
export type TrimType = 'first' | 'last' | 'both';
export type FilterOp = 'lte' | 'lt' | 'gte' | 'gt' | 'equal';

export type AggregatorSpec =
  | { readonly name: 'avg' | 'count' | 'first' | 'gaps' | 'last' | 'least_squares' | 'max' | 'min' | 'sum'; readonly range: RangeOptions }
  | { readonly name: 'dev'; readonly range: RangeOptions; readonly returnType: DevReturnType; readonly devCount: number }
  /** `histogram` arrives here too: it is KairosDB's pre-0.9.2 name of percentile (reference §6.5). */
  | { readonly name: 'percentile'; readonly range: RangeOptions; readonly percentile: number }
  | { readonly name: 'js_range'; readonly range: RangeOptions; readonly script: string; readonly arrayResult: boolean }
  | { readonly name: 'diff' }
  | { readonly name: 'div'; readonly divisor: number }
  | { readonly name: 'scale'; readonly factor: number }
  | { readonly name: 'rate' | 'sampler'; readonly sampling: Duration; readonly timeZone: string }
  | { readonly name: 'sma'; readonly size: number }
  | { readonly name: 'trim'; readonly trim: TrimType | undefined }
  | { readonly name: 'filter'; readonly op: FilterOp; readonly threshold: number }
  | { readonly name: 'js_function' | 'js_filter'; readonly script: string }
  | {
      readonly name: 'save_as';
      readonly metricName: string;
      readonly tags: Readonly<Record<string, string>>;
      readonly addSavedFrom: boolean;
      /** Tag names of the query's tag groupers: the group tags save_as keeps (reference §6.2). */
      readonly tagsToKeep: readonly string[];
    };

export type GroupBySpec =
  | { readonly name: 'tag'; readonly tags: readonly string[] }
  | { readonly name: 'time'; readonly rangeSize: Duration; readonly groupCount: number; readonly startDate: number }
  | { readonly name: 'value'; readonly rangeSize: number }
  | { readonly name: 'bin'; readonly bins: readonly number[] };

export interface MetricQuery {
  readonly name: string;
  readonly tags: TagFilter;
  /** Inclusive range, epoch ms (reference §3.3). */
  readonly start: number;
  readonly end: number;
  /** 0 = no limit. */
  readonly limit: number;
  readonly order: Order;
  readonly excludeTags: boolean;
  readonly groupBy: readonly GroupBySpec[];
  readonly aggregators: readonly AggregatorSpec[];
}

export interface ValidatedQuery {
  readonly metrics: readonly MetricQuery[];
  /** Every metric the query reads, once each, in query order: what the caller must be allowed to read. */
  readonly metricNames: readonly string[];
  /** Every metric a save_as aggregator writes: what the caller must be allowed to write. */
  readonly savedMetricNames: readonly string[];
  /** The `now` the query was validated against (relative times, default end, the end of gaps). */
  readonly now: number;
}

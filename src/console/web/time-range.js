// @ts-check
/** The history chart's choices, and the KairosDB query they make (pure: no DOM, unit-tested in node). */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** @typedef {{id: string, label: string, ms: number}} RangeChoice */

/** @type {readonly RangeChoice[]} */
export const RANGES = [
  { id: '15m', label: 'Last 15 minutes', ms: 15 * MINUTE },
  { id: '1h', label: 'Last hour', ms: HOUR },
  { id: '6h', label: 'Last 6 hours', ms: 6 * HOUR },
  { id: '24h', label: 'Last 24 hours', ms: DAY },
  { id: '7d', label: 'Last 7 days', ms: 7 * DAY },
  { id: '30d', label: 'Last 30 days', ms: 30 * DAY },
];

/**
 * The range the chart opens with: the last 24 hours, which the docs promise (docs/operations.md, "Web console") and
 * the demo records on its first start.
 */
export const DEFAULT_RANGE = '24h';

/** KairosDB's range aggregators offered (kairosdb reference §6.5), and `none` for the raw points. */
export const AGGREGATORS = /** @type {const} */ (['avg', 'min', 'max', 'count', 'sum', 'none']);
/** @typedef {typeof AGGREGATORS[number]} Aggregator */

/** @typedef {{value: number, unit: 'seconds' | 'minutes' | 'hours' | 'days', ms: number, label: string}} Sampling */

/** @type {readonly Sampling[]} */
export const SAMPLINGS = [
  { value: 1, unit: 'seconds', ms: SECOND, label: '1 second' },
  { value: 10, unit: 'seconds', ms: 10 * SECOND, label: '10 seconds' },
  { value: 1, unit: 'minutes', ms: MINUTE, label: '1 minute' },
  { value: 5, unit: 'minutes', ms: 5 * MINUTE, label: '5 minutes' },
  { value: 15, unit: 'minutes', ms: 15 * MINUTE, label: '15 minutes' },
  { value: 1, unit: 'hours', ms: HOUR, label: '1 hour' },
  { value: 6, unit: 'hours', ms: 6 * HOUR, label: '6 hours' },
  { value: 1, unit: 'days', ms: DAY, label: '1 day' },
];

/** At most this many buckets when the sampling is automatic: about one per 4 pixels of the chart. */
export const AUTO_MAX_BUCKETS = 200;
/** Raw points drawn at most (the query's `limit`): more would only blur into one another. */
export const RAW_POINT_LIMIT = 10_000;

/**
 * The smallest sampling that keeps the range within `maxBuckets` buckets.
 * @param {number} spanMs
 * @param {number} [maxBuckets]
 * @returns {Sampling}
 */
export function autoSampling(spanMs, maxBuckets = AUTO_MAX_BUCKETS) {
  return SAMPLINGS.find((s) => s.ms * maxBuckets >= spanMs) ?? SAMPLINGS[SAMPLINGS.length - 1];
}

/**
 * The time range of a choice: a preset ending now, or the custom start and end (ms). Undefined when a custom range
 * is incomplete or ends before it starts.
 * @param {string} choice a RANGES id or 'custom'
 * @param {number} now
 * @param {{start: number, end: number}} [custom]
 * @returns {{start: number, end: number} | undefined}
 */
export function resolveRange(choice, now, custom) {
  if (choice === 'custom') {
    if (!custom || !Number.isFinite(custom.start) || !Number.isFinite(custom.end) || custom.end <= custom.start) return undefined;
    return custom;
  }
  const preset = RANGES.find((r) => r.id === choice) ?? RANGES[1];
  return { start: now - preset.ms, end: now };
}

/**
 * The data-store query of one device's field over a range (KairosDB query format, docs/data-store.md "Data-store API"): the
 * metric is the deviceid, the field its `attr` tag. Buckets are aligned to the sampling unit, so a redraw a few
 * seconds later shows the same buckets.
 * @param {{deviceid: string, attr: string, start: number, end: number, aggregator: Aggregator, sampling: Sampling}} choice
 */
export function historyQuery({ deviceid, attr, start, end, aggregator, sampling }) {
  const metric = {
    name: deviceid,
    tags: { attr: [attr] },
    ...(aggregator === 'none'
      ? { limit: RAW_POINT_LIMIT }
      : { aggregators: [{ name: aggregator, align_sampling: true, sampling: { value: sampling.value, unit: sampling.unit } }] }),
  };
  return { start_absolute: Math.floor(start), end_absolute: Math.ceil(end), metrics: [metric] };
}

/**
 * The fields of a device that have points, for the field picker (query/tags answers with the `attr` tag's values).
 * @param {string} deviceid
 */
export const fieldsQuery = (deviceid) => ({ start_absolute: 1, metrics: [{ name: deviceid }] });

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
 * The range the chart opens with: fitted to the points the device has (issue 24 §1), so a device that streamed for a
 * minute fills the chart with that minute instead of showing one dot at the edge of 24 hours.
 */
export const DEFAULT_RANGE = 'fit';

/** A fitted range spans at least this much, so a single point sits inside the chart, not on its edge. */
export const FIT_MIN_SPAN_MS = MINUTE;
/** A fitted range spans at most the last this much of the device's points. */
export const FIT_MAX_SPAN_MS = 30 * DAY;
/** A fitted range follows now while the last point is at most this old (or as old as the span of the points). */
const FIT_LIVE_MIN_MS = 5 * MINUTE;

/**
 * The range fitted to a device's points: from its first point (at most FIT_MAX_SPAN_MS before its last) to now
 * while it still writes (its last point is no older than FIT_LIVE_MIN_MS, or than the span of its points), else to
 * its last point; with a margin of 5% so no point sits on an edge. No points: the last hour, following now.
 * @param {{first: number, last: number} | undefined} extent the times of its first and last points
 * @param {number} now
 * @returns {{start: number, end: number, live: boolean}}
 */
export function fitRange(extent, now) {
  if (!extent) return { start: now - HOUR, end: now, live: true };
  const live = now - extent.last <= Math.max(FIT_LIVE_MIN_MS, extent.last - extent.first);
  const end = live ? now : extent.last;
  const start = Math.min(Math.max(extent.first, end - FIT_MAX_SPAN_MS), end - FIT_MIN_SPAN_MS);
  const margin = Math.max((end - start) * 0.05, SECOND);
  return { start: Math.floor(start - margin), end: live ? end : Math.ceil(end + margin), live };
}

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
 * The time range of a choice: fitted to the device's points, a preset ending now, or the custom start and end (ms).
 * `live` when it ends at now, so the chart follows new points. Undefined when a custom range is incomplete or ends
 * before it starts.
 * @param {string} choice 'fit', a RANGES id or 'custom'
 * @param {number} now
 * @param {{custom?: {start: number, end: number}, extent?: {first: number, last: number}}} [context]
 * @returns {{start: number, end: number, live: boolean} | undefined}
 */
export function resolveRange(choice, now, { custom, extent } = {}) {
  if (choice === 'fit') return fitRange(extent, now);
  if (choice === 'custom') {
    if (!custom || !Number.isFinite(custom.start) || !Number.isFinite(custom.end) || custom.end <= custom.start) return undefined;
    return { ...custom, live: false };
  }
  const preset = RANGES.find((r) => r.id === choice) ?? RANGES[1];
  return { start: now - preset.ms, end: now, live: true };
}

/**
 * The data-store query of a device's fields over a range (KairosDB query format, docs/data-store.md "Data-store API"):
 * the metric is the deviceid, each field an `attr` tag, grouped by it so each field is its own result. Buckets are
 * aligned to the sampling unit, so a redraw a few seconds later, or a query of only the last bucket, shows the same
 * buckets.
 * @param {{deviceid: string, fields: readonly string[], start: number, end: number, aggregator: Aggregator, sampling: Sampling}} choice
 */
export function historyQuery({ deviceid, fields, start, end, aggregator, sampling }) {
  const metric = {
    name: deviceid,
    tags: { attr: [...fields] },
    group_by: [{ name: 'tag', tags: ['attr'] }],
    ...(aggregator === 'none'
      ? { limit: RAW_POINT_LIMIT }
      : { aggregators: [{ name: aggregator, align_sampling: true, sampling: { value: sampling.value, unit: sampling.unit } }] }),
  };
  return { start_absolute: Math.floor(start), end_absolute: Math.ceil(end), metrics: [metric] };
}

/**
 * The first and the last point of a device, whatever the field: two queries of one raw point each, in one call.
 * @param {string} deviceid
 */
export const extentQuery = (deviceid) => ({
  start_absolute: 1,
  metrics: [{ name: deviceid, order: 'asc', limit: 1 }, { name: deviceid, order: 'desc', limit: 1 }],
});

/**
 * The fields of a device that have points, for the field picker (query/tags answers with the `attr` tag's values).
 * @param {string} deviceid
 */
export const fieldsQuery = (deviceid) => ({ start_absolute: 1, metrics: [{ name: deviceid }] });

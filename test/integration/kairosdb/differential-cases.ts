import { DAY, DENSE_DAYS, DENSE_START, HOUR, SPARSE_DAYS, SPARSE_START } from '../../helpers/differential';

/**
 * The queries of the differential suite: every core aggregator with sampling and alignment variants, the four
 * groupers, tag filters, limit and order, relative and absolute ranges, time zones. Each is run as it is by the
 * embedded engine and, through the adapter, by the real KairosDB.
 */

export interface Metrics {
  /** densePoints: hosts a, b, c (and a/y/rack r1), five days from DENSE_START. */
  dense: string;
  /** sparsePoints: sites north and south, 500 days from SPARSE_START. */
  sparse: string;
  /** recentPoints: the two days before the suite started. */
  recent: string;
  /** Never written. */
  missing: string;
}

export interface DiffCase {
  label: string;
  body: Record<string, unknown>;
}

type Json = Record<string, unknown>;

const h = (value: number) => ({ value, unit: 'hours' });
const d = (value: number) => ({ value, unit: 'days' });

export function differentialCases(m: Metrics): DiffCase[] {
  const denseRange = { start_absolute: DENSE_START, end_absolute: DENSE_START + DENSE_DAYS * DAY };
  const sparseRange = { start_absolute: SPARSE_START, end_absolute: SPARSE_START + SPARSE_DAYS * DAY };
  const dense = (metric: Json, top: Json = {}): Json => ({ ...denseRange, ...top, metrics: [{ name: m.dense, ...metric }] });
  const sparse = (metric: Json, top: Json = {}): Json => ({ ...sparseRange, ...top, metrics: [{ name: m.sparse, ...metric }] });
  const agg = (name: string, extra: Json = {}) => ({ name, ...extra });
  const one = (label: string, body: Json): DiffCase => ({ label, body });
  const b = { tags: { host: 'b' } };
  const c = { tags: { host: 'c' } };

  return [
    // Series selection and raw points.
    one('raw, every series merged', dense({})),
    one('tag filter: one value', dense({ tags: { host: 'a' } })),
    one('tag filter: values OR-ed', dense({ tags: { host: ['a', 'c'] } })),
    one('tag filter: tags AND-ed', dense({ tags: { host: 'a', dc: 'y' } })),
    one('tag filter: a tag some series lack', dense({ tags: { rack: 'r1' } })),
    one('tag filter: an empty list filters nothing', dense({ tags: { host: [] }, limit: 50 })),
    one('tag filter: no series matches', dense({ tags: { host: 'zzz' } })),
    one('a metric never written', dense({ name: m.missing })),
    one('a range with no points', dense({}, { start_absolute: DENSE_START - 10 * DAY, end_absolute: DENSE_START - 9 * DAY })),
    one('exclude_tags', dense({ tags: { host: 'b' }, exclude_tags: true, limit: 20 })),

    // Every core aggregator, hourly.
    ...['avg', 'count', 'sum', 'min', 'max', 'first', 'last', 'least_squares'].map((name) =>
      one(`${name}, 3 hours`, dense({ aggregators: [agg(name, { sampling: h(3) })] }))),
    one('dev, 6 hours', dense({ aggregators: [agg('dev', { sampling: h(6) })] })),
    one('dev pos_sd, dev_count 2', dense({ aggregators: [agg('dev', { sampling: h(6), return_type: 'pos_sd', dev_count: 2 })] })),
    one('dev neg_sd', dense({ aggregators: [agg('dev', { sampling: h(6), return_type: 'neg_sd' })] })),
    one('percentile 0.5, 1 hour', dense({ aggregators: [agg('percentile', { sampling: h(1), percentile: 0.5 })] })),
    one('percentile 0.95, 1 day', dense({ aggregators: [agg('percentile', { sampling: d(1), percentile: 0.95 })] })),
    one('percentile 0.1, 30 minutes', dense({ ...c, aggregators: [agg('percentile', { sampling: { value: 30, unit: 'minutes' }, percentile: 0.1 })] })),
    one('gaps, 30 minutes, over an hourly series', dense({ tags: { rack: 'r1' }, aggregators: [agg('gaps', { sampling: { value: 30, unit: 'minutes' } })] })),
    one('gaps over a range with no points', dense({ aggregators: [agg('gaps', { sampling: h(2) })] }, { start_absolute: DENSE_START - 2 * DAY, end_absolute: DENSE_START - DAY })),
    one('diff', dense({ ...b, aggregators: [agg('diff')] })),
    one('div', dense({ aggregators: [agg('div', { divisor: 4 })] })),
    one('scale', dense({ ...c, aggregators: [agg('scale', { factor: -2.5 })] })),
    one('rate per minute', dense({ ...b, aggregators: [agg('rate', { unit: 'minutes' })] })),
    one('rate per hour, sampling form', dense({ ...c, aggregators: [agg('rate', { sampling: h(1) })] })),
    one('rate over merged series with equal timestamps (refused)', dense({ tags: { host: 'a' }, aggregators: [agg('rate', { unit: 'seconds' })] })),
    one('sampler per hour', dense({ ...c, aggregators: [agg('sampler', { unit: 'hours' })] })),
    one('sma 5', dense({ ...b, aggregators: [agg('sma', { size: 5 })] })),
    ...['first', 'last', 'both'].map((trim) => one(`trim ${trim}`, dense({ ...b, limit: 30, aggregators: [agg('trim', { trim })] }))),
    one('filter lt 10', dense({ ...b, aggregators: [agg('filter', { filter_op: 'lt', threshold: 10 })] })),
    one('filter gte 20.5', dense({ tags: { host: 'a', dc: 'x' }, aggregators: [agg('filter', { filter_op: 'gte', threshold: 20.5 })] })),
    one('filter equal 0', dense({ ...b, aggregators: [agg('filter', { filter_op: 'equal', threshold: 0 })] })),
    one('filter lte, gt', dense({ ...c, aggregators: [agg('filter', { filter_op: 'lte', threshold: 1 }), agg('filter', { filter_op: 'gt', threshold: 4 })] })),

    // Sampling units and values.
    one('sum without sampling: 1 ms buckets merge equal timestamps', dense({ tags: { host: 'a' }, aggregators: [agg('sum')] })),
    one('sum, 250 milliseconds', dense({ ...b, limit: 100, aggregators: [agg('sum', { sampling: { value: 250, unit: 'milliseconds' } })] })),
    one('avg, 90 seconds', dense({ ...b, aggregators: [agg('avg', { sampling: { value: 90, unit: 'seconds' } })] })),
    one('max, 45 minutes', dense({ aggregators: [agg('max', { sampling: { value: 45, unit: 'minutes' } })] })),
    one('min, 5 hours', dense({ aggregators: [agg('min', { sampling: h(5) })] })),
    one('sum, 2 days', dense({ aggregators: [agg('sum', { sampling: d(2) })] })),
    one('sum, 1 week', sparse({ aggregators: [agg('sum', { sampling: { value: 1, unit: 'weeks' } })] })),
    one('avg, 1 month', sparse({ aggregators: [agg('avg', { sampling: { value: 1, unit: 'months' } })] })),
    one('count, 3 months', sparse({ aggregators: [agg('count', { sampling: { value: 3, unit: 'months' } })] })),
    one('count, 1 year', sparse({ aggregators: [agg('count', { sampling: { value: 1, unit: 'years' } })] })),

    // Alignment.
    one('align_sampling, hours (anchor: midnight)', dense({ aggregators: [agg('sum', { sampling: h(5), align_sampling: true })] }, { start_absolute: DENSE_START + 5 * HOUR + 1234 })),
    one('align_start_time', dense({ aggregators: [agg('avg', { sampling: h(2), align_start_time: true })] }, { start_absolute: DENSE_START + 777 })),
    one('align_end_time', dense({ aggregators: [agg('max', { sampling: h(2), align_end_time: true })] }, { start_absolute: DENSE_START + 777 })),
    one('align_start_time and align_end_time: start wins', dense({ aggregators: [agg('min', { sampling: h(2), align_end_time: true, align_start_time: true })] })),
    one('align_sampling + align_start_time, minutes', dense({ ...b, aggregators: [agg('count', { sampling: { value: 20, unit: 'minutes' }, align_sampling: true, align_start_time: true })] }, { start_absolute: DENSE_START + 7 * HOUR + 5 })),
    one('align_sampling, milliseconds (start of the second)', dense({ ...b, limit: 50, aggregators: [agg('sum', { sampling: { value: 400, unit: 'milliseconds' }, align_sampling: true, align_start_time: true })] }, { start_absolute: DENSE_START + 123 })),
    one('align_sampling, weeks (Monday)', sparse({ aggregators: [agg('sum', { sampling: { value: 2, unit: 'weeks' }, align_sampling: true, align_start_time: true })] })),
    one('align_sampling, months', sparse({ aggregators: [agg('sum', { sampling: { value: 1, unit: 'months' }, align_sampling: true, align_end_time: true })] }, { start_absolute: SPARSE_START + 17 * DAY })),
    one('align_sampling, years', sparse({ aggregators: [agg('max', { sampling: { value: 1, unit: 'years' }, align_sampling: true, align_start_time: true })] }, { start_absolute: SPARSE_START + 40 * DAY })),
    one('start_time overrides the anchor', dense({ aggregators: [agg('sum', { sampling: h(4), start_time: DENSE_START + 90 * 60_000, align_start_time: true })] })),
    one('last, aligned to the start', dense({ aggregators: [agg('last', { sampling: h(3), align_start_time: true })] })),

    // Time zones.
    one('days in Asia/Bangkok, aligned', dense({ aggregators: [agg('sum', { sampling: d(1), align_sampling: true, align_start_time: true })] }, { time_zone: 'Asia/Bangkok' })),
    one('days in Europe/Paris across the DST switch', dense({ aggregators: [agg('count', { sampling: d(1), align_sampling: true, align_start_time: true })] }, { time_zone: 'Europe/Paris' })),
    one('hours in Europe/Paris across the DST switch', dense({ ...b, aggregators: [agg('sum', { sampling: h(6), align_sampling: true, align_end_time: true })] }, { time_zone: 'Europe/Paris' })),
    one('months in America/New_York', sparse({ aggregators: [agg('avg', { sampling: { value: 1, unit: 'months' }, align_sampling: true, align_start_time: true })] }, { time_zone: 'America/New_York' })),
    one('weeks in Australia/Sydney', sparse({ aggregators: [agg('count', { sampling: { value: 1, unit: 'weeks' }, align_sampling: true })] }, { time_zone: 'Australia/Sydney' })),
    one('an aggregator time_zone overrides the query one', dense({ aggregators: [agg('sum', { sampling: d(1), align_sampling: true, align_start_time: true, time_zone: 'Asia/Tokyo' })] }, { time_zone: 'Europe/Paris' })),
    one('rate per day in Europe/Paris (a 23-hour day)', dense({ ...c, aggregators: [agg('rate', { unit: 'days', time_zone: 'Europe/Paris' })] })),
    one('time_zone "UTC" given', dense({ aggregators: [agg('avg', { sampling: d(1), align_sampling: true })] }, { time_zone: 'UTC' })),

    // Groupers.
    one('group_by tag host', dense({ group_by: [{ name: 'tag', tags: ['host'] }], aggregators: [agg('avg', { sampling: d(1) })] })),
    one('group_by tag dc, host', dense({ group_by: [{ name: 'tag', tags: ['dc', 'host'] }], aggregators: [agg('count', { sampling: d(1) })] })),
    one('group_by a tag some series lack', dense({ group_by: [{ name: 'tag', tags: ['rack'] }], aggregators: [agg('max', { sampling: d(1) })] })),
    one('group_by tag with exclude_tags', dense({ exclude_tags: true, group_by: [{ name: 'tag', tags: ['host'] }], aggregators: [agg('sum', { sampling: d(1) })] })),
    one('group_by time: hour of the day', dense({ ...b, group_by: [{ name: 'time', range_size: h(1), group_count: 24 }], aggregators: [agg('count', { sampling: d(10) })] })),
    one('group_by time: day of the week', sparse({ group_by: [{ name: 'time', range_size: d(1), group_count: 7 }], aggregators: [agg('avg', { sampling: { value: 1, unit: 'years' } })] })),
    one('group_by time: months', sparse({ group_by: [{ name: 'time', range_size: { value: 1, unit: 'months' }, group_count: 12 }], aggregators: [agg('count', { sampling: { value: 5, unit: 'years' } })] })),
    one('group_by value', dense({ ...b, group_by: [{ name: 'value', range_size: 10 }] })),
    one('group_by value over fractional values', dense({ ...c, group_by: [{ name: 'value', range_size: 2 }], aggregators: [agg('count', { sampling: d(5) })] })),
    one('group_by bin', dense({ group_by: [{ name: 'bin', bins: [0, 10, 20, 30] }], aggregators: [agg('sum', { sampling: d(1) })] })),
    one('group_by tag + time', dense({ group_by: [{ name: 'tag', tags: ['host'] }, { name: 'time', range_size: h(6), group_count: 4 }], aggregators: [agg('avg', { sampling: d(5) })] })),
    one('group_by value + bin', dense({ ...b, group_by: [{ name: 'value', range_size: 15 }, { name: 'bin', bins: [5, 25] }] })),
    one('group_by time with no data', dense({ tags: { host: 'zzz' }, group_by: [{ name: 'time', range_size: h(1), group_count: 24 }] })),

    // Limit and order.
    one('limit 10', dense({ limit: 10 })),
    one('limit 10, desc', dense({ limit: 10, order: 'desc' })),
    one('limit 3 per tag group', dense({ limit: 3, group_by: [{ name: 'tag', tags: ['host'] }] })),
    one('limit over many 3-week rows (applied per row first)', sparse({ limit: 4 })),
    one('limit over many 3-week rows, desc, then avg', sparse({ limit: 4, order: 'desc', aggregators: [agg('avg', { sampling: { value: 1, unit: 'years' } })] })),
    one('limit with a time grouper', sparse({ limit: 40, group_by: [{ name: 'time', range_size: d(7), group_count: 3 }] })),
    one('order desc, raw', dense({ ...c, order: 'desc' })),
    one('order desc with a range aggregator (one bucket)', dense({ ...b, order: 'desc', aggregators: [agg('sum', { sampling: h(1) })] })),
    one('order desc with diff and rate', dense({ ...c, order: 'desc', aggregators: [agg('diff'), agg('rate', { unit: 'hours' })] })),

    // Ranges.
    one('two metrics, the second with its own absolute range', {
      ...denseRange,
      metrics: [
        { name: m.dense, tags: { host: 'b' }, aggregators: [agg('sum', { sampling: d(1) })] },
        { name: m.sparse, start_absolute: SPARSE_START + 30 * DAY, end_absolute: SPARSE_START + 90 * DAY, aggregators: [agg('sum', { sampling: { value: 2, unit: 'weeks' } })] },
      ],
    }),
    one('per-metric start sets the anchor and the time grouper', {
      ...denseRange,
      metrics: [{ name: m.dense, start_absolute: DENSE_START + 95 * 60_000, group_by: [{ name: 'time', range_size: h(5), group_count: 3 }], aggregators: [agg('sum', { sampling: h(2) })] }],
    }),
    one('no end: the end is now', { start_absolute: SPARSE_START + 400 * DAY, metrics: [{ name: m.sparse, aggregators: [agg('count', { sampling: { value: 1, unit: 'months' } })] }] }),
    one('start_relative', { start_relative: { value: 1, unit: 'days' }, metrics: [{ name: m.recent }] }),
    one('start_relative and end_relative, summed hourly', { start_relative: { value: 36, unit: 'hours' }, end_relative: { value: 6, unit: 'hours' }, metrics: [{ name: m.recent, aggregators: [agg('sum', { sampling: h(1) })] }] }),
    one('start_relative in minutes, aligned averages', { start_relative: { value: 300, unit: 'minutes' }, metrics: [{ name: m.recent, aggregators: [agg('avg', { sampling: { value: 30, unit: 'minutes' }, align_sampling: true, align_start_time: true })] }] }),
    one('start_relative in weeks with a time zone', { start_relative: { value: 1, unit: 'weeks' }, time_zone: 'Asia/Bangkok', metrics: [{ name: m.recent, aggregators: [agg('max', { sampling: d(1), align_sampling: true })] }] }),
    one('start_relative months', { start_relative: { value: 2, unit: 'months' }, metrics: [{ name: m.recent, aggregators: [agg('count', { sampling: d(1) })] }] }),

    // Chains.
    one('sum 1 hour, then avg 1 day', dense({ aggregators: [agg('sum', { sampling: h(1) }), agg('avg', { sampling: d(1) })] })),
    one('avg 10 minutes, max 1 hour, diff', dense({ aggregators: [agg('avg', { sampling: { value: 10, unit: 'minutes' } }), agg('max', { sampling: h(1) }), agg('diff')] })),
    one('count 1 hour, filter lt 5', dense({ aggregators: [agg('count', { sampling: h(1) }), agg('filter', { filter_op: 'lt', threshold: 5 })] })),
    one('gaps, then count', dense({ tags: { rack: 'r1' }, aggregators: [agg('gaps', { sampling: { value: 20, unit: 'minutes' } }), agg('count', { sampling: h(2) })] })),
    one('scale, sma, trim', dense({ ...b, aggregators: [agg('scale', { factor: 0.5 }), agg('sma', { size: 3 }), agg('trim', { trim: 'both' })] })),
    one('div, then percentile, grouped by tag', dense({ group_by: [{ name: 'tag', tags: ['dc'] }], aggregators: [agg('div', { divisor: 3 }), agg('percentile', { sampling: h(12), percentile: 0.75 })] })),
  ];
}

import { expect } from 'chai';
import { validateQuery } from '../../src/timeseries/query';
import { DirtyRanges } from '../../src/timeseries/rollups/dirty-ranges';
import { planMetric } from '../../src/timeseries/rollups/plan';
import { daysOf } from '../../src/timeseries/rollups/refresh';
import { bucketStart, tierMetric } from '../../src/timeseries/rollups/tiers';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** 2026-01-01T00:00:00Z. */
const T0 = Date.UTC(2026, 0, 1);
const tiers = [
  { tier: { periodMs: MINUTE, retentionMs: undefined }, from: 0 },
  { tier: { periodMs: HOUR, retentionMs: undefined }, from: 0 },
];

const metricOf = (metric: Record<string, unknown>, range: Record<string, unknown> = {}) =>
  validateQuery({ start_absolute: T0, end_absolute: T0 + DAY - 1, ...range, metrics: [{ name: 'd1', ...metric }] }, T0 + 2 * DAY).metrics[0];
const hourly = (more: Record<string, unknown> = {}) => ({ name: 'avg', sampling: { value: 1, unit: 'hours' }, ...more });

describe('roll-up query plans (rollups/plan.ts)', () => {
  it('takes the coarsest tier whose periods make up the sampling', () => {
    expect(planMetric(metricOf({ aggregators: [hourly()] }), tiers)?.tier.periodMs).to.equal(HOUR);
    expect(planMetric(metricOf({ aggregators: [hourly({ sampling: { value: 15, unit: 'minutes' } })] }), tiers)?.tier.periodMs).to.equal(MINUTE);
    expect(planMetric(metricOf({ aggregators: [hourly({ sampling: { value: 1, unit: 'months' } })] }), tiers)?.tier.periodMs).to.equal(HOUR);
  });

  it('answers the whole tier buckets of the range from the tier, the partial ones at both ends raw', () => {
    const plan = planMetric(metricOf({ aggregators: [hourly({ align_sampling: true })] }, { start_absolute: T0 + 10 * MINUTE, end_absolute: T0 + 5 * HOUR + 1 }), tiers);

    expect(plan).to.include({ tierFrom: T0 + HOUR, tierTo: T0 + 5 * HOUR - 1, aggregator: 'avg', byAttr: false });
  });

  it('answers only from where the tier is complete', () => {
    const plan = planMetric(metricOf({ aggregators: [hourly()] }), [{ tier: { periodMs: HOUR, retentionMs: undefined }, from: T0 + 3 * HOUR + 5 }]);

    expect(plan?.tierFrom).to.equal(T0 + 4 * HOUR);
  });

  it('keeps transforms that follow the range aggregator, and a group by attr', () => {
    const plan = planMetric(metricOf({ aggregators: [hourly(), { name: 'scale', factor: 2 }, { name: 'diff' }], group_by: [{ name: 'tag', tags: ['attr'] }] }), tiers);

    expect(plan?.rest.map((a) => a.name)).to.deep.equal(['scale', 'diff']);
    expect(plan?.byAttr).to.equal(true);
  });

  const refused: [string, Record<string, unknown>, Record<string, unknown>?][] = [
    ['no aggregator', {}],
    ['a limit', { limit: 10, aggregators: [hourly()] }],
    ['descending order', { order: 'desc', aggregators: [hourly()] }],
    ['a filter on a tag other than attr', { tags: { unit: ['c'] }, aggregators: [hourly()] }],
    ['a group by another tag', { group_by: [{ name: 'tag', tags: ['agg'] }], aggregators: [hourly()] }],
    ['a group by time', { group_by: [{ name: 'time', range_size: { value: 1, unit: 'hours' }, group_count: 24 }], aggregators: [hourly()] }],
    ['an aggregator no tier keeps', { aggregators: [hourly({ name: 'dev' })] }],
    ['a later aggregator that needs the raw points', { aggregators: [hourly(), { name: 'rate', sampling: { value: 1, unit: 'minutes' } }] }],
    ['a sampling that is not whole minutes', { aggregators: [hourly({ sampling: { value: 90, unit: 'seconds' } })] }],
    ['buckets anchored off the tier boundary', { aggregators: [hourly()] }, { start_absolute: T0 + 30_000 }],
    ['a calendar sampling outside UTC', { aggregators: [hourly({ sampling: { value: 1, unit: 'days' }, time_zone: 'Asia/Kolkata' })] }],
    ['a range shorter than one tier period', { aggregators: [hourly({ sampling: { value: 1, unit: 'minutes' } })] }, { start_absolute: T0 + 1, end_absolute: T0 + 30_000 }],
  ];
  for (const [what, metric, range] of refused) {
    it(`leaves a query with ${what} to the raw points`, () => {
      expect(planMetric(metricOf(metric, range), tiers)).to.equal(undefined);
    });
  }

  it('aligns buckets to UTC midnight with align_sampling in a zone a whole hours away', () => {
    const metric = metricOf({ aggregators: [hourly({ align_sampling: true, time_zone: 'Asia/Bangkok' })] }, { start_absolute: T0 + 17 * MINUTE });

    expect(planMetric(metric, tiers)?.tier.periodMs).to.equal(HOUR);
    expect(planMetric(metricOf({ aggregators: [hourly({ align_sampling: true, time_zone: 'Asia/Kolkata' })] }), tiers)?.tier.periodMs).to.equal(MINUTE);
  });
});

describe('roll-up tiers and dirty ranges', () => {
  it('names a tier metric that no device id can be, and aligns buckets to the epoch, before 1970 too', () => {
    expect(tierMetric(HOUR, 'd1')).to.equal('$rollup/1h/d1');
    expect(bucketStart(T0 + 61 * MINUTE + 5, HOUR)).to.equal(T0 + HOUR);
    expect(bucketStart(-1, HOUR)).to.equal(-HOUR);
  });

  it('joins a device\'s marks into few ranges and hands them over once', () => {
    const dirty = new DirtyRanges();
    for (let t = T0; t < T0 + 10 * MINUTE; t += 1000) dirty.mark('d1', t, t);
    dirty.mark('d1', T0 - 5 * DAY, T0 - 5 * DAY);

    expect(dirty.rangesOf('d1')).to.deep.equal([{ start: T0 - 5 * DAY, end: T0 - 5 * DAY }, { start: T0, end: T0 + 10 * MINUTE - 1000 }]);
    expect([...dirty.take().keys()]).to.deep.equal(['d1']);
    expect(dirty.take().size).to.equal(0);
  });

  it('recomputes whole UTC days, each once', () => {
    expect(daysOf([{ start: T0 + HOUR, end: T0 + DAY + 1 }, { start: T0 + 2 * HOUR, end: T0 + 3 * HOUR }])).to.deep.equal([T0, T0 + DAY]);
  });
});

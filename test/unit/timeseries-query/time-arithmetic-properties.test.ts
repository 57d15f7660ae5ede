import { expect } from 'chai';
import fc from 'fast-check';
import { AppError } from '../../../src/core/errors';
import { DEFAULT_QUERY_BUDGETS, executeQuery, QueryRun, ScriptSandbox, validateQuery } from '../../../src/timeseries/query';
import { availableZoneIds } from '../../../src/timeseries/query/time-zone';
import { MemorySeriesSource } from '../../helpers/memory-series-source';

/**
 * Issue 10 §4: whatever the units, values (up to 2^53) and zones of a query, the time arithmetic of the validator
 * and the engine answers or refuses with a 4xx; it never fails with anything else (a RangeError from the zone
 * arithmetic used to become a 500 INTERNAL).
 */

const NOW = Date.UTC(2024, 5, 15, 12);
const UNITS = ['milliseconds', 'seconds', 'minutes', 'hours', 'days', 'weeks', 'months', 'years'] as const;
const ZONES = availableZoneIds();

const noScripts: ScriptSandbox = {
  mapPoints: async (_s, _t, values) => values,
  filterPoints: async (_s, _t, values) => values.map(() => true),
  reduceRanges: async (_s, ranges) => ranges.map((r) => r.values.length),
};

function source(): MemorySeriesSource {
  return new MemorySeriesSource()
    .withSeries('dev', { attr: 'temp' }, [[NOW - 3_600_000, 1], [NOW - 60_000, 2], [NOW - 1, 3]])
    .withSeries('dev', { attr: 'far' }, [[-8.6e15, 4], [0, 5], [8.6e15, 6]]);
}

/**
 * Runs a query under the default budgets but one second of time (a walk of a million calendar ranges in a zone can
 * take the whole default budget; it ends in a 400 all the same); a failure must be an AppError of status 4xx.
 */
async function answersOrRefuses(body: unknown): Promise<void> {
  const s = source();
  const run = new QueryRun({ ...DEFAULT_QUERY_BUDGETS, timeoutMs: 1000 });
  try {
    await executeQuery(validateQuery(body, NOW), { source: s, writer: s, sandbox: noScripts }, run);
  } catch (err) {
    expect(err, `${String(err)} for ${JSON.stringify(body)}`).to.be.instanceOf(AppError);
    expect((err as AppError).status, `${(err as Error).message} for ${JSON.stringify(body)}`).to.be.within(400, 499);
  } finally {
    run.finish();
  }
}

const unit = fc.constantFrom(...UNITS);
/** Small, large and enormous values: 1, a few thousand, up to 2^53. */
const amount = fc.oneof(fc.integer({ min: 1, max: 10 }), fc.integer({ min: 1, max: 5_000_000 }), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }));
const duration = fc.record({ value: amount, unit });
const zone = fc.constantFrom(...ZONES);
const instant = fc.oneof(fc.integer({ min: -(2 ** 53), max: 2 ** 53 }), fc.integer({ min: NOW - 10 * 365 * 86_400_000, max: NOW }));

const rangeMembers = fc.record({
  sampling: duration,
  align_sampling: fc.boolean(),
  align_start_time: fc.boolean(),
  align_end_time: fc.boolean(),
  time_zone: zone,
  start_time: instant,
}, { requiredKeys: ['sampling'] });

const aggregator = fc.oneof(
  fc.tuple(fc.constantFrom('avg', 'count', 'gaps', 'last', 'sum', 'js_range'), rangeMembers)
    .map(([name, r]) => ({ name, ...r, ...(name === 'js_range' ? { script: 'values.length' } : {}) })),
  fc.tuple(fc.constantFrom('rate', 'sampler'), duration, zone).map(([name, sampling, time_zone]) => ({ name, sampling, time_zone })),
);

const groupBy = fc.record({ name: fc.constant('time'), range_size: duration, group_count: fc.integer({ min: 1, max: 1000 }) });

const query = fc.record({
  start: fc.oneof(fc.record({ start_relative: duration }), fc.record({ start_absolute: instant })),
  end: fc.option(fc.oneof(fc.record({ end_relative: duration }), fc.record({ end_absolute: instant })), { nil: undefined }),
  time_zone: fc.option(zone, { nil: undefined }),
  aggregators: fc.array(aggregator, { minLength: 1, maxLength: 2 }),
  group_by: fc.option(groupBy, { nil: undefined }),
}).map(({ start, end, time_zone, aggregators, group_by }) => ({
  ...start,
  ...end,
  ...(time_zone === undefined ? {} : { time_zone }),
  metrics: [{ name: 'dev', aggregators, ...(group_by === undefined ? {} : { group_by: [group_by] }) }],
}));

describe('time arithmetic of queries (fast-check, issue 10 §4)', function () {
  this.timeout(120_000);

  it('answers or refuses with a 4xx for any units, values up to 2^53 and zones', async () => {
    await fc.assert(fc.asyncProperty(query, answersOrRefuses), { numRuns: 1500 });
  });

  it('refuses an enormous sampling with a 4xx in every IANA zone, on the aggregator or on the query', async () => {
    for (const time_zone of ZONES) {
      await answersOrRefuses({
        start_relative: { value: 80, unit: 'minutes' },
        metrics: [{ name: 'dev', aggregators: [{ name: 'gaps', sampling: { value: 300000, unit: 'years' }, time_zone }] }],
      });
      await answersOrRefuses({
        start_relative: { value: 80, unit: 'minutes' },
        time_zone,
        metrics: [{ name: 'dev', aggregators: [{ name: 'avg', align_sampling: true, sampling: { value: 3600000, unit: 'months' } }] }],
      });
    }
  });
});

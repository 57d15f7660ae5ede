import { expect } from 'chai';
import fc from 'fast-check';
import { AppError } from '../../../src/core/errors';
import { KairosQueryError, runQuery, ScriptSandbox, validateQuery } from '../../../src/timeseries/query';
import { MemorySeriesSource } from '../../helpers/memory-series-source';

/**
 * Properties (issue 3 "Done when"): any valid query either answers or fails with a 400 KairosQueryError (never a
 * 500-type error), and any invalid body fails with a 400 KairosQueryError carrying messages.
 */

const NOW = Date.UTC(2024, 0, 1);
const HOUR = 3_600_000;

const sandbox: ScriptSandbox = {
  mapPoints: async (_s, _t, values) => values.map((v) => v * 2),
  filterPoints: async (_s, _t, values) => values.map((v) => v > 0),
  reduceRanges: async (_s, ranges, arrayResult) => ranges.map((r) => (arrayResult ? [r.values.length, r.values[0] ?? 0] : r.values.length)),
};

function dataSource(): MemorySeriesSource {
  const source = new MemorySeriesSource();
  for (const [i, attr] of ['temp', 'humid', 'env.co2'].entries()) {
    source.withSeries('dev-1', { attr }, Array.from({ length: 200 }, (_, k): [number, number] => [NOW - 48 * HOUR + k * 13 * 60_000 + i * 1000, Math.sin(k + i) * 50]));
  }
  source.withSeries('dev-2', { attr: 'temp', room: 'a' }, [[NOW - HOUR, 1], [NOW - HOUR, 1], [NOW - 10, -3]]);
  return source;
}

const unit = fc.constantFrom('milliseconds', 'seconds', 'minutes', 'hours', 'days', 'weeks', 'months', 'years', 'Minutes', 'HOURS');
const duration = (max: number) => fc.record({ value: fc.integer({ min: 1, max }), unit });
const zone = fc.constantFrom('UTC', 'Asia/Bangkok', 'Europe/Paris', 'America/New_York', '');
const range = fc.record({
  sampling: duration(5), align_sampling: fc.boolean(), align_start_time: fc.boolean(), align_end_time: fc.boolean(), time_zone: zone,
}, { requiredKeys: [] });

const aggregator = fc.oneof(
  fc.tuple(fc.constantFrom('avg', 'count', 'first', 'last', 'least_squares', 'max', 'min', 'sum', 'dev'), range).map(([name, r]) => ({ name, ...r })),
  range.map((r) => ({ name: 'gaps', ...r, sampling: { value: 1, unit: 'hours' } })),
  fc.tuple(fc.constantFrom('percentile', 'histogram'), range, fc.double({ min: 0.01, max: 1, noNaN: true })).map(([name, r, percentile]) => ({ name, ...r, percentile })),
  fc.constantFrom({ name: 'diff' }, { name: 'div', divisor: 2 }, { name: 'scale', factor: -1.5 }, { name: 'trim', trim: 'both' }, { name: 'sma', size: 3 }),
  fc.tuple(fc.constantFrom('rate', 'sampler'), unit).map(([name, u]) => ({ name, unit: u })),
  fc.tuple(fc.constantFrom('lt', 'lte', 'gt', 'gte', 'equal'), fc.integer({ min: -50, max: 50 })).map(([filter_op, threshold]) => ({ name: 'filter', filter_op, threshold })),
  fc.constantFrom({ name: 'js_function', script: 'value * 2' }, { name: 'js_filter', script: 'value > 0' }),
  range.map((r) => ({ name: 'js_range', script: 'count', array_result: r.align_sampling ?? false, ...r })),
  fc.constant({ name: 'save_as', metric_name: 'copy' }),
);

const groupBy = fc.oneof(
  fc.constant({ name: 'tag', tags: ['attr'] }),
  fc.constant({ name: 'tag', tags: ['room', 'attr'] }),
  fc.record({ name: fc.constant('time'), range_size: duration(3), group_count: fc.integer({ min: 1, max: 5 }) }),
  fc.record({ name: fc.constant('value'), range_size: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ name: fc.constant('bin'), bins: fc.array(fc.integer({ min: -60, max: 60 }), { minLength: 1, maxLength: 4 }) }),
);

const metric = fc.record({
  name: fc.constantFrom('dev-1', 'dev-2', 'nothing'),
  tags: fc.constantFrom({}, { attr: ['temp', 'humid'] }, { attr: 'env.co2' }, { attr: [] }),
  group_by: fc.array(groupBy, { maxLength: 2 }),
  aggregators: fc.array(aggregator, { maxLength: 3 }),
  limit: fc.integer({ min: 1, max: 500 }),
  order: fc.constantFrom('asc', 'desc'),
  exclude_tags: fc.boolean(),
}, { requiredKeys: ['name'] });

const validQuery = fc.record({
  start: fc.oneof(
    fc.record({ start_relative: duration(3).map((d) => ({ ...d, unit: d.unit === 'milliseconds' ? 'days' : d.unit })) }),
    fc.integer({ min: 0, max: 72 }).map((h) => ({ start_absolute: NOW - h * HOUR - 1 })),
  ),
  end: fc.option(fc.constantFrom({ end_absolute: NOW }, { end_relative: { value: 1, unit: 'milliseconds' } }), { nil: undefined }),
  time_zone: fc.option(zone, { nil: undefined }),
  metrics: fc.array(metric, { maxLength: 3 }),
}).map(({ start, end, time_zone, metrics }) => ({ ...start, ...end, ...(time_zone === undefined ? {} : { time_zone }), metrics }));

function expectQueryError(err: unknown): void {
  expect(err, String(err)).to.be.instanceOf(KairosQueryError);
  const error = err as KairosQueryError;
  expect(error.status).to.equal(400);
  expect(error.errors.length).to.be.greaterThan(0);
  for (const message of error.errors) expect(message).to.be.a('string').and.not.equal('');
}

/**
 * A valid query may also go over a budget (issue 10): 413 QUERY_TOO_LARGE (or 400 QUERY_TIMEOUT) naming the budget,
 * with KairosDB's `errors` list; e.g. three years of hourly `gaps` in 50 value groups would answer 1.3 million points.
 */
function expectQueryErrorOrBudget(err: unknown): void {
  if (err instanceof KairosQueryError) return expectQueryError(err);
  expect(err, String(err)).to.be.instanceOf(AppError);
  const error = err as AppError;
  expect(['QUERY_TOO_LARGE', 'QUERY_TIMEOUT']).to.include(error.code);
  expect(error.status).to.equal(error.code === 'QUERY_TIMEOUT' ? 400 : 413);
  expect(error.extra.budget).to.be.a('string').and.match(/^QUERY_/);
  expect(error.extra.errors).to.deep.equal([error.message]);
}

describe('query properties (fast-check)', function () {
  this.timeout(60_000);

  it('a valid query answers, or fails only with a 400 KairosQueryError', async () => {
    await fc.assert(fc.asyncProperty(validQuery, async (body) => {
      const source = dataSource();
      try {
        const response = await runQuery(body, { source, writer: source, sandbox, now: NOW });
        expect(response.queries).to.have.length(body.metrics.length);
        for (const q of response.queries) {
          expect(q.sample_size).to.be.a('number');
          for (const r of q.results) for (const point of r.values) expect(point[0]).to.be.a('number').and.satisfy(Number.isFinite);
        }
      } catch (err) {
        expectQueryErrorOrBudget(err);
      }
    }), { numRuns: 300 });
  });

  const breakers: [string, (q: Record<string, unknown>) => Record<string, unknown>][] = [
    ['no start', ({ start_absolute: _a, start_relative: _r, ...rest }) => rest],
    ['bad relative unit', (q) => ({ ...q, start_absolute: undefined, start_relative: { value: 1, unit: 'fortnights' } })],
    ['zero relative value', (q) => ({ ...q, start_absolute: undefined, start_relative: { value: 0, unit: 'days' } })],
    ['bad zone', (q) => ({ ...q, time_zone: 'Nowhere/Land' })],
    ['negative cache_time', (q) => ({ ...q, cache_time: -5 })],
    ['no metrics', ({ metrics: _m, ...rest }) => rest],
    ['both starts', (q) => ({ ...q, start_absolute: NOW - HOUR, start_relative: { value: 1, unit: 'hours' } })],
    ['end before start', (q) => ({ ...q, end_relative: undefined, end_absolute: -1 })],
    ['metric without name', (q) => ({ ...q, metrics: [{ tags: {} }] })],
    ['empty tag value', (q) => ({ ...q, metrics: [{ name: 'm', tags: { attr: [''] } }] })],
    ['bad limit', (q) => ({ ...q, metrics: [{ name: 'm', limit: -1 }] })],
    ['bad order', (q) => ({ ...q, metrics: [{ name: 'm', order: 'sideways' }] })],
    ['unknown aggregator', (q) => ({ ...q, metrics: [{ name: 'm', aggregators: [{ name: 'median' }] }] })],
    ['unknown aggregator member', (q) => ({ ...q, metrics: [{ name: 'm', aggregators: [{ name: 'avg', window: 3 }] }] })],
    ['bad sampling', (q) => ({ ...q, metrics: [{ name: 'm', aggregators: [{ name: 'sum', sampling: { value: 0, unit: 'hours' } }] }] })],
    ['zero divisor', (q) => ({ ...q, metrics: [{ name: 'm', aggregators: [{ name: 'div', divisor: '0' }] }] })],
    ['bad group_by', (q) => ({ ...q, metrics: [{ name: 'm', group_by: [{ name: 'time', group_count: 0 }] }] })],
  ];

  it('an invalid query fails with a 400 KairosQueryError and a message', () => {
    fc.assert(fc.property(validQuery, fc.constantFrom(...breakers), (body, [, breaker]) => {
      const broken = JSON.parse(JSON.stringify(breaker({ ...body, metrics: body.metrics.length > 0 ? body.metrics : [{ name: 'm' }] })));
      try {
        validateQuery(broken, NOW);
      } catch (err) {
        expectQueryError(err);
        return;
      }
      expect.fail(`accepted ${JSON.stringify(broken)}`);
    }), { numRuns: 300 });
  });

  const vocabulary = ['start_absolute', 'start_relative', 'end_absolute', 'end_relative', 'time_zone', 'cache_time', 'metrics', 'name',
    'tags', 'group_by', 'aggregators', 'limit', 'order', 'exclude_tags', 'sampling', 'value', 'unit', 'range_size', 'group_count',
    'bins', 'percentile', 'divisor', 'trim', 'filter_op', 'align_sampling', 'plugins', 'script', 'metric_name', '__proto__', 'constructor'];
  const anyJson = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' },
      fc.constantFrom(null, true, false, 0, -1, 1.5, 1e300, '', '1', 'abc', 'days', 'sum', 'tag', 'UTC', 'desc'),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(fc.constantFrom(...vocabulary), tie('value'), { maxKeys: 5 })),
  })).value;

  it('any JSON body answers or fails with a KairosQueryError, never anything else', async () => {
    await fc.assert(fc.asyncProperty(anyJson, async (raw) => {
      const body = JSON.parse(JSON.stringify(raw) ?? 'null');
      const source = dataSource();
      try {
        await runQuery(body, { source, writer: source, sandbox, now: NOW });
      } catch (err) {
        expectQueryError(err);
      }
    }), { numRuns: 500 });
  });
});

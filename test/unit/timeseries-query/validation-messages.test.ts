import { expect } from 'chai';
import { errorsOf } from '../../helpers/kairos-query';

/**
 * KairosDB's invalid-query cases and their exact messages (reference §3.6; QueryParserTest and the
 * invalid-query-metric-*.json inputs of the InscopeMetrics fork, reference §10).
 */

const START = { start_absolute: 784041330, end_absolute: 788879730 };
const UNITS = 'MILLISECONDS,SECONDS,MINUTES,HOURS,DAYS,WEEKS,MONTHS,YEARS';
const withMetric = (metric: Record<string, unknown>) => ({ ...START, metrics: [{ name: 'abc.123', ...metric }] });
const withAggregator = (aggregator: Record<string, unknown>) => withMetric({ aggregators: [aggregator] });
const withGroupBy = (...groupBy: Record<string, unknown>[]) => withMetric({ group_by: groupBy });

describe('KairosDB query validation: messages (reference §3.6)', () => {
  describe('query level', () => {
    it('refuses a negative cache_time without the query. prefix', () => {
      expect(errorsOf({ ...START, cache_time: -1, metrics: [{ name: 'm' }] })).to.deep.equal(['cache_time must be greater than or equal to 0']);
    });

    it('requires a start time, reported against the metric', () => {
      expect(errorsOf({ metrics: [{ name: 'm' }] })).to.deep.equal(['query.metric[0].start_time relative or absolute time must be set']);
    });

    it('refuses an absolute end before the start', () => {
      expect(errorsOf({ start_absolute: 2000, end_absolute: 1000, metrics: [{ name: 'm' }] }))
        .to.deep.equal(['query.metric[0].end_time must be greater than the start time']);
    });

    it('refuses a relative end before the relative start', () => {
      const body = { start_relative: { value: 10, unit: 'minutes' }, end_relative: { value: 20, unit: 'minutes' }, metrics: [{ name: 'm' }] };
      expect(errorsOf(body)).to.deep.equal(['query.metric[0].end_time must be greater than the start time']);
    });

    it('refuses relative values below 1 and a missing relative unit', () => {
      expect(errorsOf({ start_relative: { value: 0, unit: 'days' }, metrics: [] })).to.deep.equal(['start_relative.value must be greater than or equal to 1']);
      expect(errorsOf({ start_absolute: 1, end_relative: { value: 0, unit: 'days' }, metrics: [] }))
        .to.deep.equal(['end_relative.value must be greater than or equal to 1']);
      expect(errorsOf({ start_relative: { value: 1 }, metrics: [] })).to.deep.equal(['start_relative.unit may not be null']);
    });

    it('refuses an unknown relative unit, naming it, and requires the plural', () => {
      expect(errorsOf({ start_relative: { value: 1, unit: 'bogus' }, metrics: [] }))
        .to.deep.equal([`query.bogus is not a valid time unit, must be one of ${UNITS}`]);
      expect(errorsOf({ start_relative: { value: 1, unit: 'hour' }, metrics: [] }))
        .to.deep.equal([`query.hour is not a valid time unit, must be one of ${UNITS}`]);
    });

    it('refuses an unknown time zone and lists the valid ids', () => {
      const [message] = errorsOf({ ...START, time_zone: 'bogus', metrics: [{ name: 'm' }] });
      expect(message).to.match(/^query\.bogus is not a valid time zone, must be one of \[Africa\/Abidjan, /);
      expect(message).to.include(', Asia/Bangkok, ').and.to.include(', UTC').and.to.match(/\]$/);
    });

    it('requires the metrics key', () => {
      expect(errorsOf({ ...START })).to.deep.equal(['query.metric[] must have a size of at least 1']);
    });

    it('refuses query plugins: none is registered', () => {
      expect(errorsOf({ ...START, plugins: [{}], metrics: [] })).to.deep.equal(['plugins[0] must have a name']);
      expect(errorsOf({ ...START, plugins: [{ name: 'x' }], metrics: [] })).to.deep.equal(['.plugins[0].x invalid query plugin name']);
      expect(errorsOf(withMetric({ plugins: [{ name: 'x' }] }))).to.deep.equal(['query.metric[0].plugins[0].x invalid query plugin name']);
    });
  });

  describe('metric name and tags', () => {
    it('requires a non-empty name', () => {
      expect(errorsOf({ ...START, metrics: [{}] })).to.deep.equal(['query.metric[0].name may not be null']);
      expect(errorsOf({ ...START, metrics: [{ name: '' }] })).to.deep.equal(['query.metric[0].name may not be empty']);
    });

    it('refuses an empty tag name, giving the tag position', () => {
      expect(errorsOf(withMetric({ tags: { '': 'server1' } }))).to.deep.equal(['query.metric[0].tags[0] name must not be empty']);
      expect(errorsOf(withMetric({ tags: { a: 'x', b: 'y', '': 'z' } }))).to.deep.equal(['query.metric[0].tags[2] name must not be empty']);
    });

    it('refuses null or empty tag values, alone or in an array', () => {
      const expected = ['query.metric[0].tags[0].host value must not be null or empty'];
      expect(errorsOf(withMetric({ tags: { host: null } }))).to.deep.equal(expected);
      expect(errorsOf(withMetric({ tags: { host: '' } }))).to.deep.equal(expected);
      expect(errorsOf(withMetric({ tags: { host: ['foo', null] } }))).to.deep.equal(expected);
      expect(errorsOf(withMetric({ tags: { host: ['foo', ''] } }))).to.deep.equal(expected);
    });

    it("refuses an order other than 'asc' or 'desc'", () => {
      expect(errorsOf(withMetric({ order: 'up' }))).to.deep.equal(["query.metric[0].order must be either 'asc' or 'desc'"]);
    });
  });

  describe('aggregators', () => {
    it('requires a name, and a registered one (names are case-sensitive)', () => {
      expect(errorsOf(withAggregator({ sampling: { value: 1, unit: 'minutes' } }))).to.deep.equal(['query.metric[0].aggregators[0] must have a name']);
      expect(errorsOf(withAggregator({ name: '' }))).to.deep.equal(['query.metric[0].aggregators[0] must have a name']);
      expect(errorsOf(withAggregator({ name: 'bogus' }))).to.deep.equal(['query.metric[0].aggregators[0].bogus invalid aggregators name']);
      expect(errorsOf(withAggregator({ name: 'SUM' }))).to.deep.equal(['query.metric[0].aggregators[0].SUM invalid aggregators name']);
    });

    it('checks the sampling: value at least 1, a unit, a known unit', () => {
      expect(errorsOf(withAggregator({ name: 'sum', sampling: { value: 0, unit: 'minutes' } })))
        .to.deep.equal(['query.metric[0].aggregators[0].sampling.value must be greater than or equal to 1']);
      expect(errorsOf(withAggregator({ name: 'sum', sampling: { value: 1 } })))
        .to.deep.equal(['query.metric[0].aggregators[0].sampling.unit may not be null']);
      expect(errorsOf(withAggregator({ name: 'sum', sampling: { value: 1, unit: 'bogus' } })))
        .to.deep.equal([`query.metric[0].aggregators[0].bogus is not a valid time unit, must be one of ${UNITS}`]);
    });

    it('checks an aggregator time_zone', () => {
      const [message] = errorsOf(withAggregator({ name: 'sum', time_zone: 'Mars/Olympus' }));
      expect(message).to.match(/^query\.metric\[0\]\.aggregators\[0\]\.Mars\/Olympus is not a valid time zone, must be one of \[/);
    });

    it('requires a non-zero divisor for div', () => {
      const expected = ['query.metric[0].aggregators[0].m_divisor may not be zero'];
      expect(errorsOf(withAggregator({ name: 'div' }))).to.deep.equal(expected);
      expect(errorsOf(withAggregator({ name: 'div', divisor: 0 }))).to.deep.equal(expected);
    });

    it('requires a parseable non-zero percentile (Java number messages)', () => {
      const sampling = { value: 10, unit: 'minutes' };
      expect(errorsOf(withAggregator({ name: 'percentile', sampling }))).to.deep.equal(['query.metric[0].aggregators[0].percentile may not be zero']);
      expect(errorsOf(withAggregator({ name: 'percentile', sampling, percentile: 0 }))).to.deep.equal(['query.metric[0].aggregators[0].percentile may not be zero']);
      expect(errorsOf(withAggregator({ name: 'percentile', sampling, percentile: '0.7.1' }))).to.deep.equal(['query.metric[0].aggregators[0].percentile multiple points']);
      expect(errorsOf(withAggregator({ name: 'percentile', sampling, percentile: 'abc' }))).to.deep.equal(['query.metric[0].aggregators[0].percentile For input string: "abc"']);
    });

    it("names trim and filter values with KairosDB's shared 'trim type' wording", () => {
      expect(errorsOf(withAggregator({ name: 'trim', trim: 'middle' })))
        .to.deep.equal(["query.metric[0].aggregators[0].middle is not a valid trim type, must be 'first', 'last' or 'both'."]);
      expect(errorsOf(withAggregator({ name: 'filter', filter_op: 'ne' })))
        .to.deep.equal(["query.metric[0].aggregators[0].ne is not a valid trim type, must be 'lte', 'lt', 'gte', 'gt' or 'equal'."]);
    });

    it('refuses a member with no matching setter, without context', () => {
      expect(errorsOf(withAggregator({ name: 'sum', foo: 1 })))
        .to.deep.equal(["Property 'foo' was specified for object 'sum' but no matching setter was found on 'class org.kairosdb.core.aggregator.SumAggregator'"]);
      expect(errorsOf(withAggregator({ name: 'sampler', sampling: { value: 1, unit: 'seconds' } })))
        .to.deep.equal(["Property 'sampling' was specified for object 'sampler' but no matching setter was found on 'class org.kairosdb.core.aggregator.SamplerAggregator'"]);
    });
  });

  describe('group_by', () => {
    it('requires a name, counting the position in the array', () => {
      expect(errorsOf(withGroupBy({ tags: ['host'] }))).to.deep.equal(['query.metric[0].group_by[0] must have a name']);
      expect(errorsOf(withGroupBy({ name: 'value', range_size: 10 }, { name: '', range_size: 2 }))).to.deep.equal(['query.metric[0].group_by[1] must have a name']);
      expect(errorsOf(withGroupBy({ name: 'bogus' }))).to.deep.equal(['query.metric[0].group_by[0].bogus invalid group_by name']);
    });

    it('requires the tag grouper to list tags', () => {
      expect(errorsOf(withGroupBy({ name: 'tag' }))).to.deep.equal(['query.metric[0].group_by[0].tags may not be null']);
      expect(errorsOf(withGroupBy({ name: 'tag', tags: [] }))).to.deep.equal(['query.metric[0].group_by[0].tags may not be empty']);
    });

    it('checks the time grouper with the Java field names', () => {
      expect(errorsOf(withGroupBy({ name: 'time', group_count: 2 }))).to.deep.equal(['query.metric[0].group_by[0].rangeSize may not be null']);
      expect(errorsOf(withGroupBy({ name: 'time', range_size: { value: '0', unit: 'minutes' }, group_count: '1' })))
        .to.deep.equal(['query.metric[0].group_by[0].range_size.value must be greater than or equal to 1']);
      expect(errorsOf(withGroupBy({ name: 'time', range_size: { value: 1, unit: 'bogus' }, group_count: 1 })))
        .to.deep.equal([`query.metric[0].group_by[0].bogus is not a valid time unit, must be one of ${UNITS}`]);
      expect(errorsOf(withGroupBy({ name: 'time', range_size: { value: '1', unit: 'minutes' } })))
        .to.deep.equal(['query.metric[0].group_by[0].groupCount must be greater than or equal to 1']);
    });

    it('requires a value grouper range_size of at least 1', () => {
      expect(errorsOf(withGroupBy({ name: 'value', range_size: 0 }))).to.deep.equal(['query.metric[0].group_by[0].rangeSize must be greater than or equal to 1']);
    });

    it('refuses unknown grouper members with the grouper class', () => {
      expect(errorsOf(withGroupBy({ name: 'tag', tags: ['a'], foo: 1 })))
        .to.deep.equal(["Property 'foo' was specified for object 'tag' but no matching setter was found on 'class org.kairosdb.core.groupby.TagGroupBy'"]);
    });
  });
});

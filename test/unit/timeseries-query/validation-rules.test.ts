import { expect } from 'chai';
import { validateQuery } from '../../../src/timeseries/query';
import { errorsOf } from '../../helpers/kairos-query';

const NOW = Date.UTC(2024, 5, 15, 12, 0, 0);
const START = { start_absolute: 784041330, end_absolute: 788879730 };

describe('KairosDB query validation: order of the checks (reference §3.6)', () => {
  it('stops at a bad unit before the bean rules run', () => {
    expect(errorsOf({ cache_time: -1, start_relative: { value: 0, unit: 'bogus' }, metrics: [] }))
      .to.deep.equal(['query.bogus is not a valid time unit, must be one of MILLISECONDS,SECONDS,MINUTES,HOURS,DAYS,WEEKS,MONTHS,YEARS']);
  });

  it('reports every bean rule of the query at once', () => {
    expect(errorsOf({ cache_time: -1, start_relative: { value: 0, unit: 'days' }, metrics: [] }))
      .to.have.members(['cache_time must be greater than or equal to 0', 'start_relative.value must be greater than or equal to 1']);
  });

  it('checks the time zone before the metrics key', () => {
    expect(errorsOf({ ...START, time_zone: 'bogus' })[0]).to.match(/^query\.bogus is not a valid time zone/);
  });

  it('checks tags before the name, and the name before the start', () => {
    expect(errorsOf({ metrics: [{ name: '', tags: { '': 'x' } }] })).to.deep.equal(['query.metric[0].tags[0] name must not be empty']);
    expect(errorsOf({ metrics: [{ name: '' }] })).to.deep.equal(['query.metric[0].name may not be empty']);
  });

  it('checks group_by before aggregators, and order last', () => {
    const body = { ...START, metrics: [{ name: 'm', order: 'up', aggregators: [{ name: 'bogus' }], group_by: [{ name: 'bogus' }] }] };
    expect(errorsOf(body)).to.deep.equal(['query.metric[0].group_by[0].bogus invalid group_by name']);
    expect(errorsOf({ ...body, metrics: [{ ...body.metrics[0], group_by: [] }] })).to.deep.equal(['query.metric[0].aggregators[0].bogus invalid aggregators name']);
  });

  it('checks the metrics in order, each with its own index', () => {
    expect(errorsOf({ ...START, metrics: [{ name: 'ok' }, { name: '' }, {}] })).to.deep.equal(['query.metric[1].name may not be empty']);
  });

  it('binds aggregator members in JSON order and stops at the first bad one', () => {
    const body = { ...START, metrics: [{ name: 'm', aggregators: [{ name: 'sum', foo: 1, sampling: { value: 0, unit: 'days' } }] }] };
    expect(errorsOf(body)[0]).to.match(/^Property 'foo'/);
  });
});

describe('query rules of spec 2.6 where they tighten KairosDB (issue 3 §3)', () => {
  it('refuses both start_absolute and start_relative (KairosDB lets the absolute one win)', () => {
    expect(errorsOf({ start_absolute: 1, start_relative: { value: 1, unit: 'days' }, metrics: [{ name: 'm' }] }))
      .to.deep.equal(['query.metric[0].start_time must be either relative or absolute, not both']);
  });

  it('refuses both end_absolute and end_relative', () => {
    expect(errorsOf({ start_absolute: 1, end_absolute: 5, end_relative: { value: 1, unit: 'days' }, metrics: [{ name: 'm' }] }, NOW))
      .to.deep.equal(['query.metric[0].end_time must be either relative or absolute, not both']);
  });

  it('ends at now when no end is given (KairosDB would leave the end open)', () => {
    const q = validateQuery({ start_relative: { value: 1, unit: 'hours' }, metrics: [{ name: 'm' }] }, NOW);
    expect(q.metrics[0].start).to.equal(NOW - 3_600_000);
    expect(q.metrics[0].end).to.equal(NOW);
  });

  it('so a start in the future with no end is refused', () => {
    expect(errorsOf({ start_absolute: NOW + 1, metrics: [{ name: 'm' }] }, NOW)).to.deep.equal(['query.metric[0].end_time must be greater than the start time']);
  });

  it('requires the end to be after the start: equal is refused', () => {
    expect(errorsOf({ start_absolute: 1000, end_absolute: 1000, metrics: [{ name: 'm' }] })).to.deep.equal(['query.metric[0].end_time must be greater than the start time']);
  });

  it('takes limit 0 as no limit, like KairosDB (Grafana sends it on every query)', () => {
    expect(validateQuery({ ...START, metrics: [{ name: 'm', limit: 0 }] }, NOW).metrics[0].limit).to.equal(0);
  });

  it('requires any other limit to be a positive integer', () => {
    for (const limit of [-1, 1.5, 'ten']) {
      expect(errorsOf({ ...START, metrics: [{ name: 'm', limit }] })[0], String(limit)).to.match(/^query\.metric\[0\]\.limit /);
    }
    expect(validateQuery({ ...START, metrics: [{ name: 'm', limit: '10' }] }, NOW).metrics[0].limit).to.equal(10);
  });

  it('takes IANA zone ids, case-sensitive like Joda, with "" meaning UTC', () => {
    expect(() => validateQuery({ ...START, time_zone: 'Asia/Bangkok', metrics: [] }, NOW)).not.to.throw();
    expect(() => validateQuery({ ...START, time_zone: '', metrics: [] }, NOW)).not.to.throw();
    expect(errorsOf({ ...START, time_zone: 'asia/bangkok', metrics: [] })[0]).to.match(/^query\.asia\/bangkok is not a valid time zone/);
  });

  it('refuses a body that is not a JSON object with a 400-type error', () => {
    expect(errorsOf(undefined)).to.deep.equal(['Not a JSON Object: null']);
    expect(errorsOf([1, 2])).to.deep.equal(['Not a JSON Object: [1,2]']);
  });
});

describe('valid queries (reference §3.1-3.3)', () => {
  it('reads absolute dates, with per-metric overrides', () => {
    const q = validateQuery({ ...START, metrics: [{ name: 'abc.123' }, { name: 'abc.123', start_absolute: 784041331, end_absolute: 788879731 }] }, NOW);
    expect([q.metrics[0].start, q.metrics[0].end]).to.deep.equal([784041330, 788879730]);
    expect([q.metrics[1].start, q.metrics[1].end]).to.deep.equal([784041331, 788879731]);
  });

  it('accepts starts before the epoch, absolute or relative', () => {
    expect(validateQuery({ start_absolute: -5000, end_absolute: 0, metrics: [{ name: 'm' }] }, NOW).metrics[0].start).to.equal(-5000);
    expect(validateQuery({ start_relative: { value: 60, unit: 'years' }, metrics: [{ name: 'm' }] }, NOW).metrics[0].start).to.be.below(0);
  });

  it('reads numeric strings and units in any case (Gson leniency, NETPIE example)', () => {
    const q = validateQuery({
      start_absolute: '1357023600000', end_relative: { value: '1', unit: 'Minutes' },
      metrics: [{ name: 'm', aggregators: [{ name: 'avg', sampling: { value: '1', unit: 'MINUTES' }, align_sampling: 'true' }] }],
    }, NOW);
    expect(q.metrics[0].start).to.equal(1357023600000);
    expect(q.metrics[0].end).to.equal(NOW - 60_000);
    expect(q.metrics[0].aggregators[0]).to.deep.include({ name: 'avg' });
  });

  it('reads tag filters: one value, several, and an empty array as no filter', () => {
    const q = validateQuery({ ...START, metrics: [{ name: 'm', tags: { host: 'bar', dc: ['a', 'b'], rack: [] } }] }, NOW);
    expect(q.metrics[0].tags).to.deep.equal({ host: ['bar'], dc: ['a', 'b'] });
  });

  it('reads exclude_tags, order in any case and a missing sampling', () => {
    const q = validateQuery({ ...START, metrics: [{ name: 'm', exclude_tags: true, order: 'DESC', aggregators: [{ name: 'sum' }] }] }, NOW);
    expect(q.metrics[0]).to.deep.include({ excludeTags: true, order: 'desc' });
    expect(q.metrics[0].aggregators[0]).to.deep.equal({
      name: 'sum',
      range: { sampling: { value: 1, unit: 'MILLISECONDS' }, alignSampling: false, alignStartTime: false, alignEndTime: false, startTime: 784041330, endTime: 788879730, timeZone: 'UTC' },
    });
  });

  it('answers an empty metrics array with no queries', () => {
    expect(validateQuery({ ...START, metrics: [] }, NOW).metrics).to.deep.equal([]);
  });

  it('names every metric read and every metric save_as writes, before running', () => {
    const q = validateQuery({
      ...START,
      metrics: [
        { name: 'dev-a', aggregators: [{ name: 'save_as', metric_name: 'rollup' }] },
        { name: 'dev-b' },
        { name: 'dev-a' },
      ],
    }, NOW);
    expect(q.metricNames).to.deep.equal(['dev-a', 'dev-b']);
    expect(q.savedMetricNames).to.deep.equal(['rollup']);
  });

  it('reads histogram as percentile (its pre-0.9.2 name)', () => {
    const q = validateQuery({ ...START, metrics: [{ name: 'm', aggregators: [{ name: 'histogram', percentile: 0.5 }] }] }, NOW);
    expect(q.metrics[0].aggregators[0]).to.deep.include({ name: 'percentile', percentile: 0.5 });
  });
});

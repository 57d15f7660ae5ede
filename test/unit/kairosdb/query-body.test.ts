import { expect } from 'chai';
import { forwardedQuery, forwardedTagsQuery } from '../../../src/adapters/kairosdb/kairosdb-query-body';
import { metricBodies } from '../../../src/adapters/kairosdb/kairosdb-point-writer';
import { validateQuery } from '../../../src/timeseries/query';

const NOW = Date.UTC(2024, 5, 1, 12);
const HOUR = 3_600_000;

const forward = (body: Record<string, unknown>) => forwardedQuery(body, validateQuery(body, NOW));

describe('the query forwarded to KairosDB', () => {
  it('ends now when the query gives no end, and runs in UTC when it gives no zone', () => {
    const { requests } = forward({ start_absolute: NOW - HOUR, metrics: [{ name: 'm' }] });

    expect(requests).to.deep.equal([{
      body: { start_absolute: NOW - HOUR, end_absolute: NOW, time_zone: 'UTC', metrics: [{ name: 'm' }] },
      metricIndexes: [0],
    }]);
  });

  it('resolves relative times against the service clock, and keeps the zone and other members given', () => {
    const { requests } = forward({
      start_relative: { value: 2, unit: 'hours' }, end_relative: { value: 1, unit: 'hours' }, time_zone: 'Asia/Bangkok', cache_time: 5,
      metrics: [{ name: 'm', tags: { attr: ['t'] }, limit: 3, order: 'desc' }],
    });

    expect(requests[0].body).to.deep.equal({
      cache_time: 5, time_zone: 'Asia/Bangkok', start_absolute: NOW - 2 * HOUR, end_absolute: NOW - HOUR,
      metrics: [{ name: 'm', tags: { attr: ['t'] }, limit: 3, order: 'desc' }],
    });
  });

  it('leaves out a dev return_type KairosDB 1.2.1 cannot read, which the engine reads as the plain deviation', () => {
    const dev = (return_type: unknown) => ({ name: 'dev', return_type, sampling: { value: 1, unit: 'hours' } });
    const { requests } = forward({ start_absolute: 0, end_absolute: 100, metrics: [{ name: 'm', aggregators: [dev('POS_SD'), dev(null), dev('neg_sd')] }] });

    expect((requests[0].body.metrics as { aggregators: unknown[] }[])[0].aggregators).to.deep.equal([
      { name: 'dev', sampling: { value: 1, unit: 'hours' } },
      { name: 'dev', sampling: { value: 1, unit: 'hours' } },
      dev('neg_sd'),
    ]);
  });

  it('sends metrics whose ranges differ in separate requests (KairosDB 1.2.1 ignores per-metric ranges)', () => {
    const { requests } = forward({
      start_absolute: 0, end_absolute: 100,
      metrics: [{ name: 'a' }, { name: 'b', start_absolute: 10, end_absolute: 20 }, { name: 'c' }],
    });

    expect(requests.map((r) => [r.metricIndexes, r.body.start_absolute, r.body.end_absolute, r.body.metrics]))
      .to.deep.equal([[[0, 2], 0, 100, [{ name: 'a' }, { name: 'c' }]], [[1], 10, 20, [{ name: 'b' }]]]);
  });

  it('cuts each chain before its first aggregator KairosDB lacks; the engine runs the rest', () => {
    const sum = { name: 'sum', sampling: { value: 1, unit: 'hours' } };
    const { requests, localChains } = forward({
      start_absolute: 0, end_absolute: 100,
      metrics: [
        { name: 'a', aggregators: [sum, { name: 'histogram', percentile: 0.5 }, { name: 'max' }] },
        { name: 'b', aggregators: [{ name: 'js_function', script: 'value' }, sum] },
        { name: 'c', aggregators: [sum, { name: 'js_range', script: 'return 1' }], exclude_tags: true },
        { name: 'd', aggregators: [sum], exclude_tags: true },
      ],
    });

    expect((requests[0].body.metrics as { aggregators: unknown[] }[]).map((m) => m.aggregators)).to.deep.equal([[sum], [], [sum], [sum]]);
    expect(localChains.map((chain) => chain.map((a) => a.name))).to.deep.equal([['percentile', 'max'], ['js_function', 'sum'], ['js_range'], []]);
    // A metric whose rest runs here keeps its tags from KairosDB (save_as needs them); the adapter drops them later.
    expect(requests[0].body.metrics).to.have.nested.property('[2]').that.does.not.have.property('exclude_tags');
    expect(requests[0].body.metrics).to.have.nested.property('[3].exclude_tags', true);
  });

  it('sends a tags query without aggregators and groupers, which it ignores and KairosDB would check', () => {
    const body = {
      start_absolute: 0, end_absolute: 100,
      metrics: [{ name: 'a', tags: { x: 'y' }, group_by: [{ name: 'tag', tags: ['x'] }], aggregators: [{ name: 'js_filter', script: 'true' }] }],
    };

    expect(forwardedTagsQuery(body, validateQuery(body, NOW))[0].body.metrics).to.deep.equal([{ name: 'a', tags: { x: 'y' } }]);
  });
});

describe('the points written to KairosDB', () => {
  it('go as one double-typed metric object per series, the last value of a repeated timestamp kept', () => {
    const bodies = metricBodies([
      { metric: 'm', tags: { attr: 'a', z: '1' }, timestamp: 1, value: 10 },
      { metric: 'm', tags: { attr: 'b' }, timestamp: 1, value: 20 },
      { metric: 'm', tags: { z: '1', attr: 'a' }, timestamp: 2, value: 11 },
      { metric: 'm', tags: { attr: 'a', z: '1' }, timestamp: 1, value: 12.5 },
      { metric: 'n', tags: { attr: 'a', z: '1' }, timestamp: 1, value: 0 },
    ]);

    expect(bodies).to.deep.equal([
      { name: 'm', tags: { attr: 'a', z: '1' }, type: 'double', datapoints: [[1, 12.5], [2, 11]] },
      { name: 'm', tags: { attr: 'b' }, type: 'double', datapoints: [[1, 20]] },
      { name: 'n', tags: { attr: 'a', z: '1' }, type: 'double', datapoints: [[1, 0]] },
    ]);
  });

  it('give each point that expires the seconds it has left as its ttl, and leave out those already expired (issue 23 §2)', () => {
    const now = 1_700_000_000_000;
    const tags = { attr: 'a' };

    const bodies = metricBodies([
      { metric: 'm', tags, timestamp: 1, value: 1, expiresAt: now + 1500 },
      { metric: 'm', tags, timestamp: 2, value: 2 },
      { metric: 'm', tags, timestamp: 3, value: 3, expiresAt: now + 1001 },
      { metric: 'm', tags, timestamp: 4, value: 4, expiresAt: now },
      { metric: 'm', tags, timestamp: 5, value: 5, expiresAt: now - 60_000 },
      { metric: 'm', tags, timestamp: 6, value: 6, expiresAt: now + 50 * 365 * 86_400_000 },
    ], now);

    expect(bodies).to.deep.equal([
      { name: 'm', tags, type: 'double', datapoints: [[1, 1], [3, 3]], ttl: 2 },
      { name: 'm', tags, type: 'double', datapoints: [[2, 2]] },
      { name: 'm', tags, type: 'double', datapoints: [[6, 6]], ttl: 630_720_000 },
    ]);
  });
});

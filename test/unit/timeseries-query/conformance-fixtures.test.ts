import { expect } from 'chai';
import { MemorySeriesSource } from '../../helpers/memory-series-source';
import { query } from '../../helpers/kairos-query';

/**
 * KairosDB's end-to-end query fixtures (reference §10: src/test/resources/tests/test_aggregators and
 * test_emptyQuery), compared like its QueryIT: tags as sets, numbers within 0.01.
 */

const BASE = 1375202962764;
const years10 = { value: 10, unit: 'years' };

describe('KairosDB fixture test_aggregators: ten points 1..10, 2 ms apart', () => {
  const source = () => new MemorySeriesSource().withSeries('fixture', { host: 'test' }, Array.from({ length: 10 }, (_, i): [number, number] => [BASE + 2 * i, i + 1]));
  const aggregators: [string, Record<string, unknown>[], Record<string, unknown>?][] = [
    ['sum', [{ name: 'sum', sampling: years10 }]],
    ['max', [{ name: 'max', sampling: years10 }]],
    ['min', [{ name: 'min', sampling: years10 }]],
    ['avg', [{ name: 'avg', sampling: years10 }]],
    ['dev', [{ name: 'dev', sampling: years10 }]],
    ['least_squares', [{ name: 'least_squares', sampling: years10 }]],
    ['rate', [{ name: 'rate', unit: 'milliseconds' }]],
    ['rate descending', [{ name: 'rate', unit: 'milliseconds' }], { order: 'desc' }],
    ['sum -> avg', [{ name: 'sum', sampling: { value: 4, unit: 'milliseconds' } }, { name: 'avg', sampling: { value: 1, unit: 'years' } }]],
  ];
  const expected: number[][][] = [
    [[BASE, 55]],
    [[BASE, 10]],
    [[BASE, 1]],
    [[BASE, 5.5]],
    [[BASE, 3.02765]],
    [[BASE, 1], [BASE + 18, 10]],
    Array.from({ length: 9 }, (_, i) => [BASE + 2 + 2 * i, 0.5]),
    Array.from({ length: 9 }, (_, i) => [BASE + 16 - 2 * i, 0.5]),
    [[BASE, 11]],
  ];

  it('answers every metric of the fixture query with the fixture response', async () => {
    const response = await query(source(), {
      cache_time: 0, start_absolute: BASE, end_absolute: BASE + 18,
      metrics: aggregators.map(([, list, extra]) => ({ name: 'fixture', aggregators: list, ...extra })),
    });
    expect(response.queries).to.have.length(aggregators.length);
    response.queries.forEach((q, i) => {
      const [label] = aggregators[i];
      expect(q.results, label).to.have.length(1);
      expect(q.results[0].tags, label).to.deep.equal({ host: ['test'] });
      const values = q.results[0].values;
      expect(values.map(([t]) => t), label).to.deep.equal(expected[i].map(([t]) => t));
      values.forEach(([, v], k) => expect(v, `${label}[${k}]`).to.be.closeTo(expected[i][k][1], 0.01));
    });
  });
});

describe('KairosDB fixture test_emptyQuery', () => {
  it('answers a metric without data with one empty result', async () => {
    const response = await query(new MemorySeriesSource(), { start_relative: { value: 1, unit: 'days' }, metrics: [{ name: 'nothing.here', tags: { host: 'x' } }] });
    expect(response.queries[0].results).to.deep.equal([{ name: 'nothing.here', tags: {}, values: [] }]);
  });
});

describe('NETPIE-shaped query (reference netpie §7.4)', () => {
  it('groups a device metric by attr, one result per field, averaged per minute', async () => {
    const now = Date.UTC(2024, 0, 2);
    const minute = 60_000;
    const source = new MemorySeriesSource()
      .withSeries('device-1', { attr: 'temp' }, [[now - 3 * minute, 20], [now - 3 * minute + 10_000, 22], [now - minute, 30]])
      .withSeries('device-1', { attr: 'humit' }, [[now - 2 * minute, 50]])
      .withSeries('device-1', { attr: 'env.co2' }, [[now - 2 * minute, 400]]);
    const response = await query(source, {
      start_relative: { value: 1, unit: 'days' },
      metrics: [{ name: 'device-1', tags: { attr: ['temp', 'humit'] }, limit: 50, group_by: [{ name: 'tag', tags: ['attr'] }], aggregators: [{ name: 'avg', sampling: { value: '1', unit: 'minutes' } }] }],
    }, { now });
    const results = response.queries[0].results;
    expect(results.map((r) => r.tags?.attr[0])).to.deep.equal(['humit', 'temp']);
    expect(results[1].group_by).to.deep.equal([{ name: 'tag', tags: ['attr'], group: { attr: 'temp' } }, { name: 'type', type: 'number' }]);
    expect(results[1].values).to.deep.equal([[now - 3 * minute, 21], [now - minute, 30]]);
  });
});

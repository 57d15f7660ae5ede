import { expect } from 'chai';
import { KairosQueryError } from '../../../src/timeseries/query';
import { aggregate } from '../../helpers/aggregate-points';

/**
 * KairosDB's aggregator test vectors (reference §6, §10: src/test/java/org/kairosdb/core/aggregator/*Test.java),
 * fed in the tests' own order, like their ListDataPointGroup.
 */

const ms = (value: number) => ({ value, unit: 'milliseconds' });
/** LastAggregatorTest / SmaAggregatorTest data: duplicate times in insertion order. */
const MIXED: [number, number][] = [[1, 10], [1, 20], [1, 3], [2, 1], [2, 3], [2, 5], [3, 25]];

async function expectError(promise: Promise<unknown>, message: string) {
  try {
    await promise;
  } catch (err) {
    expect(err).to.be.instanceOf(KairosQueryError);
    expect((err as KairosQueryError).errors).to.deep.equal([message]);
    return;
  }
  expect.fail('expected a KairosQueryError');
}

describe('aggregator vectors (reference §6.2)', () => {
  describe('range aggregators with the default 1 ms sampling combine equal times', () => {
    it('last: the last point of each millisecond, at its own time', async () => {
      expect(await aggregate(MIXED, [{ name: 'last' }])).to.deep.equal([[1, 3], [2, 5], [3, 25]]);
    });

    it('first, sum, min, max, avg and count', async () => {
      expect(await aggregate(MIXED, [{ name: 'first' }])).to.deep.equal([[1, 10], [2, 1], [3, 25]]);
      expect(await aggregate(MIXED, [{ name: 'sum' }])).to.deep.equal([[1, 33], [2, 9], [3, 25]]);
      expect(await aggregate(MIXED, [{ name: 'min' }])).to.deep.equal([[1, 3], [2, 1], [3, 25]]);
      expect(await aggregate(MIXED, [{ name: 'max' }])).to.deep.equal([[1, 20], [2, 5], [3, 25]]);
      expect(await aggregate(MIXED, [{ name: 'avg' }])).to.deep.equal([[1, 11], [2, 3], [3, 25]]);
      expect(await aggregate(MIXED, [{ name: 'count' }])).to.deep.equal([[1, 3], [2, 3], [3, 1]]);
    });
  });

  describe('bucket timestamps (LastAggregatorTest, RangeAggregatorTest)', () => {
    const points: [number, number][] = [[0, 0], [1, 1], [2, 2], [3, 3], [5, 5], [6, 6], [7, 7], [8, 25]];

    it('last without alignment stamps each bucket with its last point', async () => {
      expect(await aggregate(points, [{ name: 'last', sampling: ms(5) }])).to.deep.equal([[3, 3], [8, 25]]);
    });

    it('align_start_time stamps the bucket start, align_end_time the next bucket start', async () => {
      expect(await aggregate(points, [{ name: 'last', sampling: ms(5), align_start_time: true }])).to.deep.equal([[0, 3], [5, 25]]);
      expect(await aggregate(points, [{ name: 'last', sampling: ms(5), align_end_time: true }])).to.deep.equal([[5, 3], [10, 25]]);
    });

    it('the other range aggregators stamp the first point of the bucket', async () => {
      expect(await aggregate(points, [{ name: 'sum', sampling: ms(5) }])).to.deep.equal([[0, 6], [5, 43]]);
    });
  });

  it('dev: sample standard deviation, plus pos_sd / neg_sd only in lower case', async () => {
    const points = Array.from({ length: 10 }, (_, i): [number, number] => [1, i + 1]);
    const [[, sd]] = await aggregate(points, [{ name: 'dev' }]);
    expect(sd).to.be.closeTo(3.02765, 1e-5);
    const [[, pos]] = await aggregate(points, [{ name: 'dev', return_type: 'pos_sd', dev_count: 2 }]);
    expect(pos).to.be.closeTo(5.5 + 2 * 3.0276503540974917, 1e-9);
    const [[, neg]] = await aggregate(points, [{ name: 'dev', return_type: 'neg_sd' }]);
    expect(neg).to.be.closeTo(5.5 - 3.0276503540974917, 1e-9);
    expect(await aggregate(points, [{ name: 'dev', return_type: 'POS_SD' }])).to.deep.equal([[1, sd]]);
  });

  it('dev of 0..9999 is about 2886.462 (StdAggregatorTest), and 0 for a single point', async () => {
    const [[, sd]] = await aggregate(Array.from({ length: 10000 }, (_, i): [number, number] => [1, i]), [{ name: 'dev' }]);
    expect(sd).to.be.closeTo(2886.462, 0.44);
    expect(await aggregate([[1, 5]], [{ name: 'dev' }])).to.deep.equal([[1, 0]]);
  });

  describe('percentile', () => {
    it('interpolates at q·(n+1) and clamps to the ends', async () => {
      const points = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((v): [number, number] => [1, v]);
      expect(await aggregate(points, [{ name: 'percentile', percentile: 0.5 }])).to.deep.equal([[1, 5.5]]);
      expect(await aggregate(points, [{ name: 'percentile', percentile: 0.75 }])).to.deep.equal([[1, 8.25]]);
      expect(await aggregate(points, [{ name: 'percentile', percentile: 0.05 }])).to.deep.equal([[1, 1]]);
      expect(await aggregate(points, [{ name: 'percentile', percentile: 1 }])).to.deep.equal([[1, 10]]);
    });

    it('is within 10% of the true percentile on large random sets (PercentileAggregatorTest)', async () => {
      const values = Array.from({ length: 5000 }, (_, i) => (i * 7919) % 5000);
      const sorted = [...values].sort((a, b) => a - b);
      for (const q of [0.1, 0.5, 0.9, 0.99]) {
        const [[, result]] = await aggregate(values.map((v): [number, number] => [1, v]), [{ name: 'percentile', percentile: q }]);
        const actual = sorted[Math.ceil(q * sorted.length) - 1];
        expect(result).to.be.closeTo(actual, 0.1 * actual);
      }
    });

    it('histogram is the same aggregator under its old name', async () => {
      const points = [1, 2, 3, 4].map((v): [number, number] => [1, v]);
      expect(await aggregate(points, [{ name: 'histogram', percentile: 0.5 }])).to.deep.equal(await aggregate(points, [{ name: 'percentile', percentile: 0.5 }]));
    });

    it('fails at run time outside [0..1], with Java number text', async () => {
      await expectError(aggregate([[1, 1]], [{ name: 'percentile', percentile: 2 }]), '2.0 is not in [0..1]');
    });
  });

  describe('least_squares (LeastSquaresAggregatorTest)', () => {
    it('passes one or two points through and fits a line through three or more', async () => {
      expect(await aggregate([[1, 10]], [{ name: 'least_squares', sampling: { value: 1, unit: 'hours' } }])).to.deep.equal([[1, 10]]);
      expect(await aggregate([[1, 10], [2, 20]], [{ name: 'least_squares', sampling: { value: 1, unit: 'hours' } }])).to.deep.equal([[1, 10], [2, 20]]);
      const fitted = await aggregate([[1, 10], [2, 30], [3, 20]], [{ name: 'least_squares', sampling: { value: 1, unit: 'hours' } }]);
      expect(fitted.map(([t]) => t)).to.deep.equal([1, 3]);
      expect(fitted[0][1]).to.be.closeTo(15, 1e-9);
      expect(fitted[1][1]).to.be.closeTo(25, 1e-9);
    });
  });

  describe('gaps (DataGapsMarkingAggregatorTest, reference §6.4)', () => {
    it('marks each empty 1 ms bucket with a null at its start and passes the points through', async () => {
      expect(await aggregate([[1, 10], [4, 5], [5, 25]], [{ name: 'gaps' }], { start: 1, end: 5 }))
        .to.deep.equal([[1, 10], [2, null], [3, null], [4, 5], [5, 25]]);
      expect(await aggregate([[0, 1], [1, 10], [1, 20], [1, 3], [2, 1], [2, 3], [4, 5], [5, 25]], [{ name: 'gaps' }], { start: 0, end: 5 }))
        .to.deep.equal([[0, 1], [1, 10], [1, 20], [1, 3], [2, 1], [2, 3], [3, null], [4, 5], [5, 25]]);
    });

    it('marks leading and trailing gaps up to the end', async () => {
      expect(await aggregate([[3, 1], [4, 2], [5, 3]], [{ name: 'gaps' }], { start: 1, end: 7 }))
        .to.deep.equal([[1, null], [2, null], [3, 1], [4, 2], [5, 3], [6, null]]);
    });

    it('stops at now when the end is later', async () => {
      expect(await aggregate([[1, 1]], [{ name: 'gaps' }], { start: 1, end: 100, now: 4 })).to.deep.equal([[1, 1], [2, null], [3, null]]);
    });

    it('lets count (nulls included), avg (nulls skipped), trim and save_as follow; anything reading values fails', async () => {
      const points: [number, number][] = [[1, 10], [4, 5], [5, 25]];
      const after = (name: string) => [{ name: 'gaps' }, { name, sampling: ms(10) }];
      expect(await aggregate(points, after('count'), { start: 1, end: 5 })).to.deep.equal([[1, 5]]);
      expect(await aggregate(points, after('avg'), { start: 1, end: 5 })).to.deep.equal([[1, 40 / 3]]);
      await expectError(aggregate(points, after('sum'), { start: 1, end: 5 }), 'No aggregator can be chained after org.kairosdb.core.aggregator.DataGapsMarkingAggregator');
    });
  });

  describe('pairwise aggregators', () => {
    it('diff: n points give n - 1 differences at the later times', async () => {
      expect(await aggregate([[1, 10], [2, 15], [3, 5]], [{ name: 'diff' }])).to.deep.equal([[2, 5], [3, -10]]);
    });

    it('sampler: x1 / (t1 - t0) per unit (SamplerAggregatorTest)', async () => {
      expect(await aggregate([[1, 10], [2, 20], [3, 30], [4, 40]], [{ name: 'sampler' }])).to.deep.equal([[2, 20], [3, 30], [4, 40]]);
      expect(await aggregate([[1, 10], [2, 10], [3, 5], [4, 20]], [{ name: 'sampler' }])).to.deep.equal([[2, 10], [3, 5], [4, 20]]);
      expect(await aggregate([[1, 10], [2, 10], [4, 10], [6, 20]], [{ name: 'sampler' }])).to.deep.equal([[2, 10], [4, 5], [6, 10]]);
    });

    it('rate: (x1 - x0) / (t1 - t0) scaled to the unit', async () => {
      expect(await aggregate([[0, 0], [500, 5], [1500, 20]], [{ name: 'rate', unit: 'seconds' }])).to.deep.equal([[500, 10], [1500, 15]]);
      expect(await aggregate([[0, 0], [500, 5]], [{ name: 'rate', sampling: { value: 2, unit: 'seconds' } }])).to.deep.equal([[500, 20]]);
    });

    it('rate and sampler refuse two points at the same time (two spaces in the message)', async () => {
      const same: [number, number][] = [[1, 10], [1, 15], [2, 5]];
      await expectError(aggregate(same, [{ name: 'rate' }]),
        'The rate aggregator cannot compute rate for data points with the same time stamp.  You must precede rate with another aggregator.');
      await expectError(aggregate(same, [{ name: 'sampler' }]),
        'The sampler aggregator cannot compute rate for data points with the same time stamp.  You must precede sampler with another aggregator.');
    });
  });

  describe('point-wise aggregators', () => {
    it('div and scale', async () => {
      expect(await aggregate([[1, 10], [2, 5]], [{ name: 'div', divisor: 2 }])).to.deep.equal([[1, 5], [2, 2.5]]);
      expect(await aggregate([[1, 10], [2, 5]], [{ name: 'scale', factor: 0.5 }])).to.deep.equal([[1, 5], [2, 2.5]]);
      expect(await aggregate([[1, 10]], [{ name: 'scale' }])).to.deep.equal([[1, 0]]);
    });

    it('sma: the mean of the last `size` points once the window is full (SmaAggregatorTest)', async () => {
      const data: [number, number][] = [[1, 10], [1, 20], [1, 3], [2, 1], [2, 5], [3, 6]];
      expect(await aggregate(data, [{ name: 'sma', size: 3 }])).to.deep.equal([[1, 11], [2, 8], [2, 3], [3, 4]]);
      const doubles = await aggregate([[1, 10], [1, 20.3], [1, 3], [2, 1], [2, 5.2], [3, 6]], [{ name: 'sma', size: 3 }]);
      expect(doubles.map(([t]) => t)).to.deep.equal([1, 2, 2, 3]);
      [11.1, 8.1, 3.067, 4.067].forEach((expected, i) => expect(doubles[i][1]).to.be.closeTo(expected, 0.001));
    });

    it('trim: first, last, both, and nothing without a type', async () => {
      const points: [number, number][] = [[1, 1], [2, 2], [3, 3]];
      expect(await aggregate(points, [{ name: 'trim', trim: 'first' }])).to.deep.equal([[2, 2], [3, 3]]);
      expect(await aggregate(points, [{ name: 'trim', trim: 'LAST' }])).to.deep.equal([[1, 1], [2, 2]]);
      expect(await aggregate(points, [{ name: 'trim', trim: 'both' }])).to.deep.equal([[2, 2]]);
      expect(await aggregate([[1, 1]], [{ name: 'trim', trim: 'both' }])).to.deep.equal([]);
      expect(await aggregate(points, [{ name: 'trim' }])).to.deep.equal(points);
    });

    it('filter DROPS the points that match (FilterAggregatorTest)', async () => {
      const points: [number, number][] = [[1, -10], [2, -20], [3, 30], [4, 40], [5, -50]];
      expect(await aggregate(points, [{ name: 'filter', filter_op: 'lt', threshold: 0 }])).to.deep.equal([[3, 30], [4, 40]]);
      expect(await aggregate(points, [{ name: 'filter', filter_op: 'GTE', threshold: 30 }])).to.deep.equal([[1, -10], [2, -20], [5, -50]]);
      expect(await aggregate(points, [{ name: 'filter', filter_op: 'equal', threshold: 40 }])).to.deep.equal([[1, -10], [2, -20], [3, 30], [5, -50]]);
    });
  });

  describe('chaining (reference §6.3)', () => {
    it('feeds each aggregator the previous output: sum 4 ms then avg 1 year gives 11', async () => {
      const base = 1375202962764;
      const points = Array.from({ length: 10 }, (_, i): [number, number] => [base + 2 * i, i + 1]);
      expect(await aggregate(points, [{ name: 'sum', sampling: ms(4) }, { name: 'avg', sampling: { value: 1, unit: 'years' } }], { start: base }))
        .to.deep.equal([[base, 11]]);
    });

    it('skips number-only aggregators after a js_range array result, but count still runs', async () => {
      const sandbox = {
        mapPoints: async () => [], filterPoints: async () => [],
        reduceRanges: async (_s: string, ranges: { values: number[] }[]) => ranges.map((r) => [Math.min(...r.values), Math.max(...r.values)]),
      };
      const points: [number, number][] = [[1, 1], [2, 5], [11, 7]];
      const chain = [{ name: 'js_range', script: 'x', array_result: true, sampling: ms(10) }, { name: 'sum', sampling: ms(100) }];
      expect(await aggregate(points, chain, { sandbox })).to.deep.equal([[1, 1, 5], [11, 7, 7]]);
      expect(await aggregate(points, [chain[0], { name: 'count', sampling: ms(100) }], { sandbox })).to.deep.equal([[1, 2]]);
    });
  });
});

import { expect } from 'chai';
import { MemorySeriesSource } from '../../helpers/memory-series-source';
import { query, valuesOf } from '../../helpers/kairos-query';

/** Grouping and merging (reference §4.3, §4.4, §7; test_groupBy fixture, KairosDatastoreTest, grouper tests). */

const BASE = 1375202962764;
const RANGE = { start_absolute: BASE, end_absolute: BASE + 18 };
const TYPE = { name: 'type', type: 'number' };

/** The test_groupBy data: values 1-5 on host test1, 6-10 on host test2, 2 ms apart. */
function groupByFixture(): MemorySeriesSource {
  const at = (i: number): [number, number] => [BASE + 2 * i, i + 1];
  return new MemorySeriesSource()
    .withSeries('m', { host: 'test1', server: 'server1' }, [0, 1, 2, 3, 4].map(at))
    .withSeries('m', { host: 'test2', server: 'server2' }, [5, 6, 7, 8, 9].map(at));
}

describe('group_by (reference §7)', () => {
  it('time: group_count 2 with 2 ms ranges alternates the points between groups 0 and 1', async () => {
    const response = await query(groupByFixture(), { ...RANGE, metrics: [{ name: 'm', group_by: [{ name: 'time', group_count: '2', range_size: { value: '2', unit: 'milliseconds' } }] }] });
    const [even, odd] = response.queries[0].results;
    expect(even.group_by).to.deep.equal([{ name: 'time', range_size: { value: 2, unit: 'MILLISECONDS' }, group_count: 2, group: { group_number: 0 } }, TYPE]);
    expect(even.values.map(([, v]) => v)).to.deep.equal([1, 3, 5, 7, 9]);
    expect(odd.values.map(([, v]) => v)).to.deep.equal([2, 4, 6, 8, 10]);
    // Sub-groups show every tag of the parent group.
    expect(odd.tags).to.deep.equal({ host: ['test1', 'test2'], server: ['server1', 'server2'] });
  });

  it('value: range_size 5 splits 1-4, 5-9 and 10', async () => {
    const response = await query(groupByFixture(), { ...RANGE, metrics: [{ name: 'm', group_by: [{ name: 'value', range_size: 5 }] }] });
    const results = response.queries[0].results;
    expect(results.map((r) => r.group_by)).to.deep.equal([0, 1, 2].map((g) => [{ name: 'value', range_size: 5, group: { group_number: g } }, TYPE]));
    expect(results.map((r) => r.values.map(([, v]) => v))).to.deep.equal([[1, 2, 3, 4], [5, 6, 7, 8, 9], [10]]);
  });

  it('tag: one result per host, each with its own tags', async () => {
    const response = await query(groupByFixture(), { ...RANGE, metrics: [{ name: 'm', group_by: [{ name: 'tag', tags: ['host'] }] }] });
    const [first, second] = response.queries[0].results;
    expect(first.group_by).to.deep.equal([{ name: 'tag', tags: ['host'], group: { host: 'test1' } }, TYPE]);
    expect(first.tags).to.deep.equal({ host: ['test1'], server: ['server1'] });
    expect(second.values.map(([, v]) => v)).to.deep.equal([6, 7, 8, 9, 10]);
  });

  it('value grouping truncates toward zero; a double is cut to an int first', async () => {
    const source = new MemorySeriesSource().withSeries('m', { a: 'b' }, [[1, -9.5], [2, -0.5], [3, 9], [4, 10], [5, 29.9]]);
    const response = await query(source, { start_absolute: 1, end_absolute: 10, metrics: [{ name: 'm', group_by: [{ name: 'value', range_size: 10 }] }] });
    const groups = response.queries[0].results.map((r) => [(r.group_by?.[0] as { group: { group_number: number } }).group.group_number, r.values.map(([, v]) => v)]);
    expect(groups).to.deep.equal([[0, [-9.5, -0.5, 9]], [1, [10]], [2, [29.9]]]);
  });

  it('bin: bins [2,5,7] give 0 below 2, i+1 within [bins[i], bins[i+1]), 3 from 7 (BinGroupByTest)', async () => {
    const values = [1, 2, 4, 5, 6, 7, 8, 1.9, 4.9, 7.1];
    const source = new MemorySeriesSource().withSeries('m', { a: 'b' }, values.map((v, i): [number, number] => [i + 1, v]));
    const response = await query(source, { start_absolute: 1, end_absolute: 20, metrics: [{ name: 'm', group_by: [{ name: 'bin', bins: [2, '5', 7] }] }] });
    const binOf = new Map<number, number>();
    for (const r of response.queries[0].results) {
      const entry = r.group_by?.[0] as { bins: readonly number[]; group: { bin_number: number } };
      expect(entry.bins).to.deep.equal([2, 5, 7]);
      for (const [, v] of r.values) binOf.set(v as number, entry.group.bin_number);
    }
    expect(values.map((v) => binOf.get(v))).to.deep.equal([0, 1, 1, 2, 2, 3, 3, 0, 1, 3]);
  });

  it('time by months counts calendar months in UTC from the start and ignores range_size.value', async () => {
    const start = Date.UTC(2010, 0, 1);
    const days = [[2010, 0, 31], [2010, 1, 1], [2010, 6, 1], [2011, 1, 28], [2012, 0, 31]].map(([y, m, d]) => Date.UTC(y, m, d));
    const source = new MemorySeriesSource().withSeries('m', { a: 'b' }, days.map((t, i): [number, number] => [t, i]));
    const response = await query(source, { start_absolute: start, end_absolute: Date.UTC(2013, 0, 1), metrics: [{ name: 'm', group_by: [{ name: 'time', range_size: { value: 5, unit: 'months' }, group_count: 24 }] }] });
    const numbers = response.queries[0].results.map((r) => (r.group_by?.[0] as { group: { group_number: number } }).group.group_number);
    expect(numbers).to.deep.equal([0, 1, 6, 13]);
    expect(response.queries[0].results[0].values.map(([, v]) => v)).to.deep.equal([0, 4]);
  });

  it('time by years uses 52-week years (TimeGroupBy falls through from weeks)', async () => {
    const start = Date.UTC(2020, 0, 1);
    const day = 86_400_000;
    const source = new MemorySeriesSource().withSeries('m', { a: 'b' }, [[start + 363 * day, 1], [start + 364 * day, 2]]);
    const response = await query(source, { start_absolute: start, end_absolute: start + 400 * day, metrics: [{ name: 'm', group_by: [{ name: 'time', range_size: { value: 1, unit: 'years' }, group_count: 10 }] }] });
    expect(response.queries[0].results.map((r) => r.values.map(([, v]) => v))).to.deep.equal([[1], [2]]);
  });

  it('orders group_by entries: time, value, bin in query order, then tag, then type', async () => {
    const response = await query(groupByFixture(), {
      ...RANGE, metrics: [{ name: 'm', group_by: [{ name: 'value', range_size: 100 }, { name: 'tag', tags: ['host'] }, { name: 'bin', bins: [0] }] }],
    });
    expect(response.queries[0].results[0].group_by?.map((g) => g.name)).to.deep.equal(['value', 'bin', 'tag', 'type']);
  });

  it('with a time, value or bin grouper and no data, there is no result at all', async () => {
    const response = await query(new MemorySeriesSource(), { ...RANGE, metrics: [{ name: 'm', group_by: [{ name: 'value', range_size: 5 }] }] });
    expect(response.queries[0].results).to.deep.equal([]);
  });
});

describe('tag grouping order (reference §4.3, KairosDatastoreTest)', () => {
  const byTags = async (source: MemorySeriesSource, tags: string[]) =>
    (await query(source, { start_absolute: 1, end_absolute: 10, metrics: [{ name: 'm', group_by: [{ name: 'tag', tags }] }] }))
      .queries[0].results.map((r) => (r.group_by?.[0] as { group: Record<string, string> }).group);

  it('uses "" for a missing tag and sorts by the concatenated key', async () => {
    const source = new MemorySeriesSource().withSeries('m', { tag1: 'value' }, [[1, 1]]).withSeries('m', { tag2: 'value' }, [[2, 2]]);
    expect(await byTags(source, ['tag1', 'tag2'])).to.deep.equal([{ tag1: '', tag2: 'value' }, { tag1: 'value', tag2: '' }]);
  });

  it('sorts several tag combinations', async () => {
    const source = new MemorySeriesSource()
      .withSeries('m', { tag1: 'value4', tag2: 'value2' }, [[1, 1]])
      .withSeries('m', { tag1: 'value1', tag2: 'value3' }, [[1, 1]])
      .withSeries('m', { tag1: 'value1', tag2: 'value2' }, [[1, 1]]);
    expect(await byTags(source, ['tag1', 'tag2'])).to.deep.equal([
      { tag1: 'value1', tag2: 'value2' }, { tag1: 'value1', tag2: 'value3' }, { tag1: 'value4', tag2: 'value2' },
    ]);
  });

  it('puts series whose keys collide in one group (a=xb,b=y and a=x,b=by both give axbby)', async () => {
    const source = new MemorySeriesSource().withSeries('m', { a: 'xb', b: 'y' }, [[1, 1]]).withSeries('m', { a: 'x', b: 'by' }, [[2, 2]]);
    const response = await query(source, { start_absolute: 1, end_absolute: 10, metrics: [{ name: 'm', group_by: [{ name: 'tag', tags: ['a', 'b'] }] }] });
    expect(response.queries[0].results).to.have.length(1);
    expect(response.queries[0].results[0].tags).to.deep.equal({ a: ['x', 'xb'], b: ['by', 'y'] });
  });

  it('uses only the first tag grouper', async () => {
    const source = new MemorySeriesSource().withSeries('m', { a: '1', b: '1' }, [[1, 1]]).withSeries('m', { a: '1', b: '2' }, [[2, 2]]);
    const response = await query(source, { start_absolute: 1, end_absolute: 10, metrics: [{ name: 'm', group_by: [{ name: 'tag', tags: ['a'] }, { name: 'tag', tags: ['b'] }] }] });
    expect(response.queries[0].results).to.have.length(1);
  });
});

describe('merging a group (reference §4.3 step 3)', () => {
  /** KairosDatastoreTest's rows, split so that no series repeats a timestamp. */
  function mergeFixture(): MemorySeriesSource {
    return new MemorySeriesSource()
      .withSeries('m', { s: '1' }, [[1, 3], [2, 1], [3, 25]])
      .withSeries('m', { s: '2' }, [[1, 10], [2, 3]])
      .withSeries('m', { s: '3' }, [[1, 20], [2, 5]])
      .withSeries('m', { s: '4' }, [[1, 5], [2, 6], [3, 7]])
      .withSeries('m', { s: '5' }, [[1, 14], [2, 8]])
      .withSeries('m', { s: '6' }, [[1, 20], [2, 9]]);
  }

  it('sorts by time, then value, and keeps duplicate times from different series', async () => {
    const response = await query(mergeFixture(), { start_absolute: 1, end_absolute: 3, metrics: [{ name: 'm' }] });
    expect(valuesOf(response)).to.deep.equal([[1, 3], [1, 5], [1, 10], [1, 14], [1, 20], [1, 20], [2, 1], [2, 3], [2, 5], [2, 6], [2, 8], [2, 9], [3, 7], [3, 25]]);
  });

  it('sums each millisecond across series: 72, 32, 32', async () => {
    const response = await query(mergeFixture(), { start_absolute: 1, end_absolute: 3, metrics: [{ name: 'm', aggregators: [{ name: 'sum' }] }] });
    expect(valuesOf(response)).to.deep.equal([[1, 72], [2, 32], [3, 32]]);
  });

  it('reverses the whole order for desc', async () => {
    const response = await query(mergeFixture(), { start_absolute: 1, end_absolute: 3, metrics: [{ name: 'm', order: 'desc' }] });
    expect(valuesOf(response).slice(0, 4)).to.deep.equal([[3, 25], [3, 7], [2, 9], [2, 8]]);
  });

  it('filters tags with OR within a tag and AND across tags', async () => {
    const source = new MemorySeriesSource()
      .withSeries('m', { attr: 'temp', room: 'a' }, [[1, 1]])
      .withSeries('m', { attr: 'humid', room: 'a' }, [[1, 2]])
      .withSeries('m', { attr: 'temp', room: 'b' }, [[1, 4]])
      .withSeries('m', { attr: 'co2' }, [[1, 8]]);
    const response = await query(source, { start_absolute: 1, end_absolute: 5, metrics: [{ name: 'm', tags: { attr: ['temp', 'humid', 'co2'], room: 'a' }, aggregators: [{ name: 'sum' }] }] });
    expect(valuesOf(response)).to.deep.equal([[1, 3]]);
  });
});

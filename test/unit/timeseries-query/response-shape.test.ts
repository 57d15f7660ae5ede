import { expect } from 'chai';
import { KairosQueryError, runTagsQuery } from '../../../src/timeseries/query';
import { MemorySeriesSource } from '../../helpers/memory-series-source';
import { LATER, query, runErrorsOf, valuesOf } from '../../helpers/kairos-query';

/** The response (reference §5) and the execution rules that shape it (§4.2, §4.5). */

const twoServers = () => new MemorySeriesSource()
  .withSeries('abc.123', { server: 'server1' }, [[1, 10], [2, 20], [3, 30], [4, 40], [5, 50]])
  .withSeries('abc.123', { server: 'server2' }, [[1, 50.2], [2, 10.200000000000003], [3, -9.9], [4, 0], [5, 0.5]]);

describe('query response (reference §5.1)', () => {
  it("writes KairosDB's keys in KairosDB's order", async () => {
    const response = await query(twoServers(), { start_absolute: 1, end_absolute: 3, metrics: [{ name: 'abc.123', aggregators: [{ name: 'sum' }] }] });
    expect(JSON.stringify(response)).to.equal(
      '{"queries":[{"sample_size":6,"keys_scanned":2,"results":[{"name":"abc.123","group_by":[{"name":"type","type":"number"}],' +
      '"tags":{"server":["server1","server2"]},"values":[[1,60.2],[2,30.200000000000003],[3,20.1]]}]}]}',
    );
  });

  it('answers a metric with no data with one empty result without group_by', async () => {
    const response = await query(new MemorySeriesSource(), { start_absolute: 1, end_absolute: 3, metrics: [{ name: 'm' }] });
    expect(JSON.stringify(response)).to.equal('{"queries":[{"sample_size":0,"keys_scanned":0,"results":[{"name":"m","tags":{},"values":[]}]}]}');
  });

  it('omits tags with exclude_tags, per metric', async () => {
    const response = await query(twoServers(), {
      start_absolute: 1, end_absolute: 5,
      metrics: [{ name: 'abc.123', exclude_tags: true, group_by: [{ name: 'tag', tags: ['server'] }] }, { name: 'abc.123' }],
    });
    expect(response.queries[0].results).to.have.length(2);
    for (const result of response.queries[0].results) expect(result).not.to.have.property('tags');
    expect(response.queries[1].results[0]).to.have.property('tags');
  });

  it('prints NaN as null (fork >= 1.2.25) and shows gaps as null', async () => {
    const source = new MemorySeriesSource().withSeries('m', { a: 'b' }, [[1, 1], [4, 2]]);
    const response = await query(source, { start_absolute: 1, end_absolute: 4, metrics: [{ name: 'm', aggregators: [{ name: 'gaps' }, { name: 'avg' }] }] });
    expect(valuesOf(response)).to.deep.equal([[1, 1], [2, null], [3, null], [4, 2]]);
  });

  it('fills an empty metric with gaps nulls over the whole range', async () => {
    const response = await query(new MemorySeriesSource(), { start_absolute: 1, end_absolute: 4, metrics: [{ name: 'm', aggregators: [{ name: 'gaps' }] }] });
    expect(response.queries[0].results[0]).to.deep.equal({ name: 'm', tags: {}, values: [[1, null], [2, null], [3, null]] });
  });

  it('shows every tag of the matched series, not only the filtered ones', async () => {
    const source = new MemorySeriesSource().withSeries('m', { host: 'a', dc: 'x' }, [[1, 1]]).withSeries('m', { host: 'b', dc: 'y' }, [[1, 1]]);
    const response = await query(source, { start_absolute: 1, end_absolute: 2, metrics: [{ name: 'm', tags: { host: 'a' } }] });
    expect(response.queries[0].results[0].tags).to.deep.equal({ dc: ['x'], host: ['a'] });
  });

  it('answers each metric in request order, and no metrics with no queries', async () => {
    const response = await query(twoServers(), { start_absolute: 1, end_absolute: 5, metrics: [{ name: 'other' }, { name: 'abc.123' }] });
    expect(response.queries.map((q) => q.sample_size)).to.deep.equal([0, 10]);
    expect(await query(twoServers(), { start_absolute: 1, end_absolute: 5, metrics: [] })).to.deep.equal({ queries: [] });
  });
});

describe('range, order and limit (reference §3.3, §4.2, §4.5)', () => {
  it('includes both ends of the range', async () => {
    const response = await query(twoServers(), { start_absolute: 2, end_absolute: 4, metrics: [{ name: 'abc.123', tags: { server: 'server1' } }] });
    expect(valuesOf(response)).to.deep.equal([[2, 20], [3, 30], [4, 40]]);
  });

  it('ends at now when no end is given, so future points are left out (spec 2.6)', async () => {
    const source = new MemorySeriesSource().withSeries('m', { a: 'b' }, [[1000, 1], [2000, 2], [3000, 3]]);
    const response = await query(source, { start_absolute: 1, metrics: [{ name: 'm' }] }, { now: 2000 });
    expect(valuesOf(response)).to.deep.equal([[1000, 1], [2000, 2]]);
  });

  it('keeps the first `limit` points of each group in the requested order', async () => {
    const body = (order: string, limit: number) => ({ start_absolute: 1, end_absolute: 5, metrics: [{ name: 'abc.123', order, limit, group_by: [{ name: 'tag', tags: ['server'] }] }] });
    const desc = await query(twoServers(), body('desc', 1));
    expect(desc.queries[0].results.map((r) => r.values)).to.deep.equal([[[5, 50]], [[5, 0.5]]]);
    const asc = await query(twoServers(), body('asc', 2));
    expect(asc.queries[0].results[0].values).to.deep.equal([[1, 10], [2, 20]]);
  });

  it('applies the limit first per series and 3-week row: sample_size counts what was fetched', async () => {
    const week3 = 1_814_400_000;
    const source = new MemorySeriesSource().withSeries('m', { a: 'b' }, [[week3 - 2, 1], [week3 - 1, 2], [week3, 3], [week3 + 1, 4], [week3 + 2, 5]]);
    const response = await query(source, { start_absolute: 1, end_absolute: 2 * week3, metrics: [{ name: 'm', limit: 2 }] });
    expect(response.queries[0]).to.include({ sample_size: 4, keys_scanned: 2 });
    expect(valuesOf(response)).to.deep.equal([[week3 - 2, 1], [week3 - 1, 2]]);
  });

  it('collapses a descending stream into one range bucket (upstream issue #687)', async () => {
    const source = new MemorySeriesSource().withSeries('m', { a: 'b' }, [[0, 1], [1000, 2], [2000, 3], [3000, 4]]);
    const response = await query(source, { start_absolute: 0, end_absolute: 3000, metrics: [{ name: 'm', order: 'desc', aggregators: [{ name: 'sum', sampling: { value: 1, unit: 'seconds' } }] }] });
    expect(valuesOf(response)).to.deep.equal([[3000, 10]]);
  });

  it('computes rate in descending order pair by pair (integration "Rate descending")', async () => {
    const base = 1375202962764;
    const source = new MemorySeriesSource().withSeries('m', { host: 'test' }, Array.from({ length: 10 }, (_, i): [number, number] => [base + 2 * i, i + 1]));
    const response = await query(source, { start_absolute: base, end_absolute: base + 18, metrics: [{ name: 'm', order: 'desc', aggregators: [{ name: 'rate', unit: 'milliseconds' }] }] });
    expect(valuesOf(response)).to.deep.equal(Array.from({ length: 9 }, (_, i) => [base + 16 - 2 * i, 0.5]));
  });

  it('refuses rate over merged series that share timestamps, as a 400', async () => {
    const errors = await runErrorsOf(twoServers(), { start_absolute: 1, end_absolute: 5, metrics: [{ name: 'abc.123', aggregators: [{ name: 'rate' }] }] });
    expect(errors[0]).to.match(/^The rate aggregator cannot compute rate for data points with the same time stamp\./);
  });
});

describe('tags-only response (reference §5.2)', () => {
  it('lists the tags of the matching series with no values and no sample_size', async () => {
    const source = new MemorySeriesSource().withSeries('m', { host: 'b' }, [[5, 1]]).withSeries('m', { host: 'a' }, [[6, 1]]).withSeries('m', { host: 'c' }, [[50, 1]]);
    const response = await runTagsQuery({ start_absolute: 1, end_absolute: 10, metrics: [{ name: 'm', exclude_tags: true }, { name: 'none' }] }, { source, now: LATER });
    expect(JSON.stringify(response)).to.equal('{"queries":[{"results":[{"name":"m","tags":{"host":["a","b"]},"values":[]}]},{"results":[{"name":"none","tags":{},"values":[]}]}]}');
  });

  it('validates the body like a query', async () => {
    try {
      await runTagsQuery({ metrics: [{ name: 'm' }] }, { source: new MemorySeriesSource(), now: LATER });
      expect.fail('expected a refusal');
    } catch (err) {
      expect(err).to.be.instanceOf(KairosQueryError);
      expect((err as KairosQueryError).status).to.equal(400);
    }
  });
});

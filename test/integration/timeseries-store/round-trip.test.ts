import { expect } from 'chai';
import { aPoint, everything, openTempStore, pairsOf, T0, TempStore } from '../../helpers/timeseries-store';

describe('SQLite time-series store: writing and reading points', () => {
  let temp: TempStore;
  beforeEach(() => (temp = openTempStore()));
  afterEach(() => temp.dispose());

  it('reads back every series of a metric with its tags and its points sorted by time', async () => {
    await temp.store.writer.writePoints([
      aPoint({ attr: 'temp', timestamp: T0, value: 21.5 }),
      aPoint({ attr: 'humid', timestamp: T0, value: 60 }),
      aPoint({ attr: 'temp', timestamp: T0 + 1000, value: 22 }),
      aPoint({ metric: 'device-2', attr: 'temp', timestamp: T0, value: 5 }),
    ]);

    const series = await temp.store.source.readSeries('device-1', {}, everything.start, everything.end);

    expect(series.map((s) => ({ tags: s.tags, points: pairsOf(s) }))).to.deep.equal([
      { tags: { attr: 'humid' }, points: [[T0, 60]] },
      { tags: { attr: 'temp' }, points: [[T0, 21.5], [T0 + 1000, 22]] },
    ]);
  });

  it('keeps series apart by their exact tag set, whatever the order of the tags', async () => {
    await temp.store.writer.writePoints([
      aPoint({ tags: { attr: 'temp' }, value: 1 }),
      aPoint({ tags: { attr: 'temp', unit: 'C' }, timestamp: T0, value: 2 }),
      aPoint({ tags: { unit: 'C', attr: 'temp' }, timestamp: T0 + 1, value: 3 }),
    ]);

    const series = await temp.store.source.readSeries('device-1', {}, everything.start, everything.end);

    expect(series.map((s) => ({ tags: s.tags, points: pairsOf(s) }))).to.have.deep.members([
      { tags: { attr: 'temp' }, points: [[T0, 1]] },
      { tags: { attr: 'temp', unit: 'C' }, points: [[T0, 2], [T0 + 1, 3]] },
    ]);
  });

  it('includes both ends of the range and nothing outside it', async () => {
    await temp.store.writer.writePoints([0, 1, 2, 3, 4].map((i) => aPoint({ timestamp: T0 + i, value: i })));

    const [series] = await temp.store.source.readSeries('device-1', {}, T0 + 1, T0 + 3);

    expect(pairsOf(series)).to.deep.equal([[T0 + 1, 1], [T0 + 2, 2], [T0 + 3, 3]]);
  });

  it('reads a single instant when start equals end', async () => {
    await temp.store.writer.writePoints([aPoint({ timestamp: T0, value: 1 }), aPoint({ timestamp: T0 + 1, value: 2 })]);

    const [series] = await temp.store.source.readSeries('device-1', {}, T0 + 1, T0 + 1);

    expect(pairsOf(series)).to.deep.equal([[T0 + 1, 2]]);
  });

  it('leaves out series with no point in the range', async () => {
    await temp.store.writer.writePoints([
      aPoint({ attr: 'temp', timestamp: T0 }),
      aPoint({ attr: 'humid', timestamp: T0 + 10_000 }),
    ]);

    const series = await temp.store.source.readSeries('device-1', {}, T0 + 5_000, T0 + 20_000);

    expect(series.map((s) => s.tags)).to.deep.equal([{ attr: 'humid' }]);
  });

  it('returns nothing for an unknown metric or a range that ends before it starts', async () => {
    await temp.store.writer.writePoints([aPoint()]);

    const unknown = await temp.store.source.readSeries('no-such-device', {}, everything.start, everything.end);
    expect(unknown).to.deep.equal([]);
    expect(await temp.store.source.readSeries('device-1', {}, T0 + 1, T0 - 1)).to.deep.equal([]);
  });

  it('stores timestamps before 1970 and up to 2^52, and any finite value, exactly', async () => {
    const points = [
      aPoint({ timestamp: -86_400_000, value: -0.1 }),
      aPoint({ timestamp: 0, value: Number.MAX_VALUE }),
      aPoint({ timestamp: 2 ** 52, value: Number.MIN_VALUE }),
    ];
    await temp.store.writer.writePoints(points);

    const [series] = await temp.store.source.readSeries('device-1', {}, everything.start, 2 ** 52);

    expect(pairsOf(series)).to.deep.equal(points.map((p) => [p.timestamp, p.value]));
  });
});

import { expect } from 'chai';
import { aPoint, everything, openTempStore, pairsOf, T0, TempStore, TINY_LAYOUT } from '../../helpers/timeseries-store';

const read = async (temp: TempStore, metric = 'device-1', filter = {}) =>
  (await temp.store.source.readSeries(metric, filter, everything.start, everything.end)).map((s) => ({ tags: s.tags, points: pairsOf(s) }));

describe('SQLite time-series store: deleting points', () => {
  let temp: TempStore;
  // Blocks of 4 points and heads of 3, so that ranges cut through sealed blocks and head fragments alike.
  beforeEach(() => (temp = openTempStore(TINY_LAYOUT)));
  afterEach(() => temp.dispose());

  const writeSeries = async (attr: string, count: number, valueOf = (i: number) => i) => {
    for (let i = 0; i < count; i++) await temp.store.writer.writePoints([aPoint({ attr, timestamp: T0 + i, value: valueOf(i) })]);
  };

  it('deletes the points of matching series in an inclusive range, from blocks and head alike, and keeps the rest', async () => {
    await writeSeries('temp', 11);
    await writeSeries('humid', 3);

    await temp.store.eraser.deletePoints([{ metric: 'device-1', tags: { attr: ['temp'] }, start: T0 + 2, end: T0 + 9 }]);

    expect(await read(temp)).to.deep.equal([
      { tags: { attr: 'humid' }, points: [[T0, 0], [T0 + 1, 1], [T0 + 2, 2]] },
      { tags: { attr: 'temp' }, points: [[T0, 0], [T0 + 1, 1], [T0 + 10, 10]] },
    ]);
  });

  it('keeps "last write wins" between head fragments it rewrote', async () => {
    // Two fragments in the head: [T0: 1, T0+5: 1] then [T0: 2]; deleting T0+5 rewrites the first one.
    await temp.store.writer.writePoints([aPoint({ timestamp: T0, value: 1 }), aPoint({ timestamp: T0 + 5, value: 1 })]);
    await temp.store.writer.writePoints([aPoint({ timestamp: T0, value: 2 })]);

    await temp.store.eraser.deletePoints([{ metric: 'device-1', tags: {}, start: T0 + 5, end: T0 + 5 }]);

    expect(await read(temp)).to.deep.equal([{ tags: { attr: 'temp' }, points: [[T0, 2]] }]);
  });

  it('forgets a series, and a metric, left without points; writes after a delete read back', async () => {
    await writeSeries('temp', 6);
    await temp.store.writer.writePoints([aPoint({ metric: 'device-2', timestamp: T0, value: 9 })]);

    await temp.store.eraser.deletePoints([{ metric: 'device-1', tags: {}, start: everything.start, end: everything.end }]);

    expect(await temp.store.source.metricNames()).to.deep.equal(['device-2']);
    expect(await temp.store.source.tagsOf('device-1')).to.deep.equal({});
    await writeSeries('temp', 5, (i) => 100 + i);
    expect(await read(temp)).to.deep.equal([{ tags: { attr: 'temp' }, points: [0, 1, 2, 3, 4].map((i) => [T0 + i, 100 + i]) }]);
  });

  it('deletes a whole metric, and a metric with no points without complaint', async () => {
    await writeSeries('temp', 9);
    await writeSeries('humid', 2);

    await temp.store.eraser.deleteMetric('device-1');
    await temp.store.eraser.deleteMetric('no-such-metric');

    expect(await read(temp)).to.deep.equal([]);
    expect(await temp.store.source.metricNames()).to.deep.equal([]);
  });

  it('deletes writes submitted just before it, and stays deleted after a restart', async () => {
    const pending = temp.store.writer.writePoints([aPoint({ timestamp: T0 + 1, value: 1 }), aPoint({ timestamp: T0 + 2, value: 2 })]);
    await temp.store.eraser.deletePoints([{ metric: 'device-1', tags: {}, start: T0, end: T0 + 1 }]);
    await pending;

    temp.reopen();

    expect(await read(temp)).to.deep.equal([{ tags: { attr: 'temp' }, points: [[T0 + 2, 2]] }]);
  });
});

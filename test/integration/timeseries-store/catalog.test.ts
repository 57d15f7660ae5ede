import { expect } from 'chai';
import { aPoint, openTempStore, TempStore } from '../../helpers/timeseries-store';

describe('SQLite time-series store: metric names and tags', () => {
  let temp: TempStore;
  before(async () => {
    temp = openTempStore();
    await temp.store.writer.writePoints([
      aPoint({ metric: 'dev-b', tags: { attr: 'temp' } }),
      aPoint({ metric: 'dev-a', tags: { attr: 'temp', room: 'hall' } }),
      aPoint({ metric: 'dev-a', tags: { attr: 'env.humid', room: 'hall' } }),
      aPoint({ metric: 'dev-a', tags: { attr: 'Power' } }),
      aPoint({ metric: 'other', tags: { attr: 'x' } }),
      aPoint({ metric: 'Dev-c', tags: { attr: 'x' } }),
    ]);
  });
  after(() => temp.dispose());

  it('lists every metric once, sorted by UTF-16 code units like Java', async () => {
    expect(await temp.store.source.metricNames()).to.deep.equal(['Dev-c', 'dev-a', 'dev-b', 'other']);
  });

  it('lists only the metrics that start with a prefix, case-sensitively', async () => {
    expect(await temp.store.source.metricNames('dev-')).to.deep.equal(['dev-a', 'dev-b']);
    expect(await temp.store.source.metricNames('dev-a')).to.deep.equal(['dev-a']);
    expect(await temp.store.source.metricNames('nothing')).to.deep.equal([]);
    expect(await temp.store.source.metricNames('')).to.have.length(4);
  });

  it('gives the tag names of a metric with their values, sorted, each value once', async () => {
    expect(await temp.store.source.tagsOf('dev-a')).to.deep.equal({
      attr: ['Power', 'env.humid', 'temp'],
      room: ['hall'],
    });
  });

  it('gives no tags for an unknown metric', async () => {
    expect(await temp.store.source.tagsOf('unknown')).to.deep.equal({});
  });
});

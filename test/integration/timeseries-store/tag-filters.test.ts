import { expect } from 'chai';
import { TagFilter } from '../../../src/timeseries/point';
import { aPoint, everything, openTempStore, TempStore } from '../../helpers/timeseries-store';

describe('SQLite time-series store: tag filters (KairosDB reference §4.1)', () => {
  let temp: TempStore;
  before(async () => {
    temp = openTempStore();
    await temp.store.writer.writePoints([
      aPoint({ tags: { attr: 'temp', room: 'kitchen' } }),
      aPoint({ tags: { attr: 'temp', room: 'hall' } }),
      aPoint({ tags: { attr: 'humid', room: 'kitchen' } }),
      aPoint({ tags: { attr: 'power' } }),
    ]);
  });
  after(() => temp.dispose());

  const tagsRead = async (filter: TagFilter) =>
    (await temp.store.source.readSeries('device-1', filter, everything.start, everything.end)).map((s) => s.tags);

  it('returns every series of the metric with an empty filter', async () => {
    expect(await tagsRead({})).to.have.length(4);
  });

  it('ORs the values listed for one tag', async () => {
    expect(await tagsRead({ attr: ['temp', 'power'] })).to.have.deep.members([
      { attr: 'temp', room: 'kitchen' },
      { attr: 'temp', room: 'hall' },
      { attr: 'power' },
    ]);
  });

  it('ANDs different tags', async () => {
    expect(await tagsRead({ attr: ['temp', 'humid'], room: ['kitchen'] })).to.have.deep.members([
      { attr: 'temp', room: 'kitchen' },
      { attr: 'humid', room: 'kitchen' },
    ]);
  });

  it('leaves out series that lack a filtered tag', async () => {
    expect(await tagsRead({ room: ['kitchen', 'hall'] })).to.not.deep.include({ attr: 'power' });
  });

  it('ignores a tag whose list of values is empty', async () => {
    expect(await tagsRead({ attr: ['power'], room: [] })).to.deep.equal([{ attr: 'power' }]);
  });

  it('matches exactly and case-sensitively, and returns nothing for an unknown value or tag', async () => {
    expect(await tagsRead({ attr: ['Temp'] })).to.deep.equal([]);
    expect(await tagsRead({ attr: ['tem'] })).to.deep.equal([]);
    expect(await tagsRead({ floor: ['1'] })).to.deep.equal([]);
  });
});

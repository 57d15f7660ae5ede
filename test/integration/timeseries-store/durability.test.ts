import Database from 'better-sqlite3';
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { aPoint, everything, openTempStore, pairsOf, T0, TempStore, TINY_LAYOUT } from '../../helpers/timeseries-store';

describe('SQLite time-series store: durability across restarts', () => {
  let temp: TempStore;
  beforeEach(() => (temp = openTempStore(TINY_LAYOUT)));
  afterEach(() => temp.dispose());

  it('keeps its data in DATA_DIR/timeseries.db, apart from the registry', async () => {
    await temp.store.writer.writePoints([aPoint()]);

    expect(existsSync(join(temp.dataDir, 'timeseries.db'))).to.equal(true);
    expect(existsSync(join(temp.dataDir, 'openpie.db'))).to.equal(false);
  });

  it('reads back after a restart both sealed points and points still in the head', async () => {
    // 10 points with blocks of 4: two full blocks, a partial one, and the last write left in the head.
    await temp.store.writer.writePoints(Array.from({ length: 9 }, (_, i) => aPoint({ timestamp: T0 + i, value: i })));
    await temp.store.writer.writePoints([aPoint({ timestamp: T0 + 9, value: 9 })]);

    temp.reopen();

    const [series] = await temp.store.source.readSeries('device-1', {}, everything.start, everything.end);
    expect(pairsOf(series)).to.deep.equal(Array.from({ length: 10 }, (_, i) => [T0 + i, i]));
  });

  it('goes on sealing correctly after a restart with a partly filled head', async () => {
    const at = (t: number, value: number) => aPoint({ timestamp: T0 + t, value });
    await temp.store.writer.writePoints([at(1, 1), at(2, 2)]);
    temp.reopen();
    await temp.store.writer.writePoints([at(2, 20), at(0, 0)]);
    temp.reopen();
    await temp.store.writer.writePoints([at(3, 3)]);

    const [series] = await temp.store.source.readSeries('device-1', {}, everything.start, everything.end);
    expect(pairsOf(series)).to.deep.equal([[T0, 0], [T0 + 1, 1], [T0 + 2, 20], [T0 + 3, 3]]);
  });

  it('seals a head of many small writes once it holds headFragments writes, counting across a restart', async () => {
    const fewWrites = openTempStore({ blockPoints: 4, headPoints: 100, headFragments: 3 });
    const headRows = () => {
      const db = new Database(join(fewWrites.dataDir, 'timeseries.db'), { readonly: true });
      try {
        return (db.prepare('SELECT COUNT(*) AS n FROM head').get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    try {
      await fewWrites.store.writer.writePoints([aPoint({ timestamp: T0, value: 0 })]);
      fewWrites.reopen();
      await fewWrites.store.writer.writePoints([aPoint({ timestamp: T0 + 1, value: 1 })]);
      const beforeThird = headRows();
      await fewWrites.store.writer.writePoints([aPoint({ timestamp: T0 + 2, value: 2 })]);

      expect([beforeThird, headRows()]).to.deep.equal([2, 0]);
      const [series] = await fewWrites.store.source.readSeries('device-1', {}, everything.start, everything.end);
      expect(pairsOf(series)).to.deep.equal([[T0, 0], [T0 + 1, 1], [T0 + 2, 2]]);
    } finally {
      fewWrites.dispose();
    }
  });

  it('remembers metric names and tags after a restart', async () => {
    await temp.store.writer.writePoints([aPoint({ metric: 'b', attr: 'x' }), aPoint({ metric: 'a', attr: 'y' })]);

    temp.reopen();

    expect(await temp.store.source.metricNames()).to.deep.equal(['a', 'b']);
    expect(await temp.store.source.tagsOf('b')).to.deep.equal({ attr: ['x'] });
  });
});

import Database from 'better-sqlite3';
import { expect } from 'chai';
import { join } from 'node:path';
import { TIMESERIES_FILE } from '../../../src/adapters/sqlite-timeseries/sqlite-timeseries-schema';
import { InvalidPointError } from '../../../src/timeseries/validate-points';
import { aPoint, everything, openTempStore, pairsOf, T0, TempStore } from '../../helpers/timeseries-store';

describe('SQLite time-series store: concurrent writes (group commit)', () => {
  let temp: TempStore;
  beforeEach(() => (temp = openTempStore()));
  afterEach(() => temp.dispose());

  const readAll = async () =>
    (await temp.store.source.readSeries('device-1', {}, everything.start, everything.end)).map(pairsOf);

  it('stores every one of many writes made at once, the one called last winning at an equal timestamp', async () => {
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        temp.store.writer.writePoints([aPoint({ timestamp: T0 + i, value: i }), aPoint({ timestamp: T0, value: i })]),
      ),
    );

    const [points] = await readAll();
    expect(points).to.have.length(50);
    expect(points[0]).to.deep.equal([T0, 49]);
  });

  it('fails only the write with a bad point when it is made together with good ones', async () => {
    const results = await Promise.allSettled([
      temp.store.writer.writePoints([aPoint({ timestamp: T0, value: 1 })]),
      temp.store.writer.writePoints([aPoint({ timestamp: T0 + 1, value: NaN })]),
      temp.store.writer.writePoints([aPoint({ timestamp: T0 + 2, value: 3 })]),
    ]);

    expect(results.map((r) => r.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).to.be.instanceOf(InvalidPointError);
    expect(await readAll()).to.deep.equal([[[T0, 1], [T0 + 2, 3]]]);
  });

  it('rejects every write of a transaction that fails, and stores none of them', async () => {
    const other = new Database(join(temp.dataDir, TIMESERIES_FILE));
    try {
      other.exec("CREATE TRIGGER fail BEFORE INSERT ON head BEGIN SELECT RAISE(ABORT, 'disk on fire'); END");

      const results = await Promise.allSettled([
        temp.store.writer.writePoints([aPoint({ metric: 'device-1' })]),
        temp.store.writer.writePoints([aPoint({ metric: 'device-2' })]),
      ]);

      expect(results.map((r) => r.status)).to.deep.equal(['rejected', 'rejected']);
      expect(await temp.store.source.metricNames()).to.deep.equal([]);
    } finally {
      other.close();
    }
  });

  it('commits a write made just before close, and resolves it', async () => {
    const write = temp.store.writer.writePoints([aPoint({ timestamp: T0, value: 7 })]);
    temp.store.close();
    await write;

    temp.reopen();

    expect(await readAll()).to.deep.equal([[[T0, 7]]]);
  });
});

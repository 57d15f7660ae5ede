import Database from 'better-sqlite3';
import { expect } from 'chai';
import { join } from 'node:path';
import { TIMESERIES_FILE } from '../../../src/adapters/sqlite-timeseries/sqlite-timeseries-schema';
import { aPoint, everything, openTempStore, pairsOf, T0, TempStore, TINY_LAYOUT } from '../../helpers/timeseries-store';

const readAll = async (temp: TempStore) => {
  const series = await temp.store.source.readSeries('device-1', {}, everything.start, everything.end);
  return series.length === 0 ? [] : pairsOf(series[0]);
};

const points = (pairs: [number, number][]) => pairs.map(([t, value]) => aPoint({ timestamp: T0 + t, value }));

for (const [name, layout] of [
  ['the default layout', undefined],
  ['blocks of 4 points (every few points seal)', TINY_LAYOUT],
] as const) {
  describe(`SQLite time-series store: out-of-order and duplicate points, with ${name}`, () => {
    let temp: TempStore;
    beforeEach(() => (temp = openTempStore(layout)));
    afterEach(() => temp.dispose());

    it('reads points written out of order back sorted, within a write and across writes', async () => {
      await temp.store.writer.writePoints(points([[5, 5], [1, 1], [3, 3]]));
      await temp.store.writer.writePoints(points([[4, 4], [0, 0]]));
      await temp.store.writer.writePoints(points([[2, 2], [6, 6]]));

      expect(await readAll(temp)).to.deep.equal([[0, 0], [1, 1], [2, 2], [3, 3], [4, 4], [5, 5], [6, 6]].map(
        ([t, v]) => [T0 + t, v],
      ));
    });

    it('keeps the last of equal timestamps within one write', async () => {
      await temp.store.writer.writePoints(points([[1, 10], [2, 20], [1, 11], [1, 12]]));

      expect(await readAll(temp)).to.deep.equal([[T0 + 1, 12], [T0 + 2, 20]]);
    });

    it('keeps the value of the last write at a timestamp written again', async () => {
      await temp.store.writer.writePoints(points([[1, 10], [2, 20], [3, 30]]));
      await temp.store.writer.writePoints(points([[2, 21]]));
      await temp.store.writer.writePoints(points([[2, 22], [4, 40]]));

      expect(await readAll(temp)).to.deep.equal([[T0 + 1, 10], [T0 + 2, 22], [T0 + 3, 30], [T0 + 4, 40]]);
    });

    it('keeps the last write across a restart', async () => {
      await temp.store.writer.writePoints(points([[1, 10], [2, 20]]));
      temp.reopen();
      await temp.store.writer.writePoints(points([[2, 21], [3, 30]]));
      temp.reopen();

      expect(await readAll(temp)).to.deep.equal([[T0 + 1, 10], [T0 + 2, 21], [T0 + 3, 30]]);
    });
  });
}

describe('SQLite time-series store: rewriting sealed blocks (blocks of 4 points)', () => {
  let temp: TempStore;
  beforeEach(() => (temp = openTempStore(TINY_LAYOUT)));
  afterEach(() => temp.dispose());

  // Timestamps 0, 10, ..., 110 in order: sealed as blocks [0..30] [40..70] [80..110].
  const twelve = () => points(Array.from({ length: 12 }, (_, i) => [i * 10, i] as [number, number]));

  it('overwrites the last point of one block and the first of the next', async () => {
    await temp.store.writer.writePoints(twelve());
    await temp.store.writer.writePoints(points([[30, 300], [40, 400]]));
    await temp.store.writer.writePoints(points([[110, 1100], [200, 2000]])); // fills the head: seals

    const read = await readAll(temp);
    expect(read).to.have.length(13);
    expect(read.filter(([t]) => [30, 40, 110, 200].includes(t - T0))).to.deep.equal([
      [T0 + 30, 300],
      [T0 + 40, 400],
      [T0 + 110, 1100],
      [T0 + 200, 2000],
    ]);
  });

  it('places very late points inside old blocks and in the gaps between them, in order', async () => {
    await temp.store.writer.writePoints(twelve());
    await temp.store.writer.writePoints(points([[-5, -1], [35, 3.5], [55, 5.5], [75, 7.5], [5, 0.5]]));

    const read = await readAll(temp);
    expect(read.map(([t]) => t - T0)).to.deep.equal([
      -5, 0, 5, 10, 20, 30, 35, 40, 50, 55, 60, 70, 75, 80, 90, 100, 110,
    ]);
    expect(read.find(([t]) => t === T0 + 55)).to.deep.equal([T0 + 55, 5.5]);
  });

  it('answers range reads that start or end inside a block or between blocks', async () => {
    await temp.store.writer.writePoints(twelve());

    const range = async (from: number, to: number) =>
      (await temp.store.source.readSeries('device-1', {}, T0 + from, T0 + to)).flatMap((s) =>
        Array.from(s.timestamps, (t) => t - T0),
      );
    expect(await range(15, 45)).to.deep.equal([20, 30, 40]);
    expect(await range(30, 40)).to.deep.equal([30, 40]);
    expect(await range(31, 39)).to.deep.equal([]);
    expect(await range(-100, 0)).to.deep.equal([0]);
    expect(await range(110, 1000)).to.deep.equal([110]);
  });

  it('agrees with a plain map of timestamp to last value after 2000 random writes', async () => {
    // A small linear congruential generator: the same sequence on every run.
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const expected = new Map<number, number>();
    for (let w = 0; w < 2000; w++) {
      // Up to 6 points at random times among 500; every value is unique, so the winner is checkable.
      const pairs = Array.from({ length: 1 + random(6) }, (_, k): [number, number] => [random(500), w * 10 + k]);
      const batch = points(pairs);
      batch.forEach((p) => expected.set(p.timestamp, p.value));
      await temp.store.writer.writePoints(batch);
      if (w === 1000) temp.reopen();
    }

    const sorted = [...expected.entries()].sort(([a], [b]) => a - b);
    expect(await readAll(temp)).to.deep.equal(sorted);
    const [part] = await temp.store.source.readSeries('device-1', {}, T0 + 100, T0 + 199);
    expect(pairsOf(part)).to.deep.equal(sorted.filter(([t]) => t >= T0 + 100 && t <= T0 + 199));
    expectSortedDisjointBlocks(temp.dataDir, TINY_LAYOUT.blockPoints);
  });
});

/** The layout's invariant, read from the file: a series' blocks are sorted, never overlap and never overflow. */
function expectSortedDisjointBlocks(dataDir: string, blockPoints: number): void {
  const db = new Database(join(dataDir, TIMESERIES_FILE), { readonly: true });
  try {
    const blocks = db
      .prepare('SELECT series_id, first_ts, last_ts, count FROM blocks ORDER BY series_id, last_ts')
      .all() as { series_id: number; first_ts: number; last_ts: number; count: number }[];
    expect(blocks.length).to.be.greaterThan(10);
    blocks.forEach((b, i) => {
      expect(b.count).to.be.within(1, blockPoints);
      expect(b.first_ts).to.be.at.most(b.last_ts);
      const prev = blocks[i - 1];
      if (prev?.series_id === b.series_id) expect(b.first_ts).to.be.greaterThan(prev.last_ts);
    });
  } finally {
    db.close();
  }
}

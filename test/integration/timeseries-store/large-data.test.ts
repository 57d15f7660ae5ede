import { expect } from 'chai';
import { Point } from '../../../src/timeseries/point';
import { openTempStore, T0, TempStore } from '../../helpers/timeseries-store';

const ATTRS = ['env.temp', 'env.humid', 'power'];
const POINTS = 300_000;

/** Point k: attr k mod 3, one per second per attr, value k. */
const pointAt = (k: number): Point => ({
  metric: 'device-big',
  tags: { attr: ATTRS[k % 3] },
  timestamp: T0 + Math.floor(k / 3) * 1000,
  value: k,
});

const sum = (values: ArrayLike<number>) => {
  let total = 0;
  for (let i = 0; i < values.length; i++) total += values[i];
  return total;
};

describe('SQLite time-series store: 300k points', function () {
  this.timeout(60_000);
  let temp: TempStore;
  before(async () => {
    temp = openTempStore();
    // Batches of 1000 written newest first, so that every batch lands before the sealed data: the worst order.
    for (let first = POINTS - 1000; first >= 0; first -= 1000) {
      await temp.store.writer.writePoints(Array.from({ length: 1000 }, (_, i) => pointAt(first + i)));
    }
    temp.reopen();
  });
  after(() => temp.dispose());

  it('reads every point back, per series, with the right count and sum and in order', async () => {
    const series = await temp.store.source.readSeries('device-big', {}, T0, T0 + POINTS * 1000);

    expect(series.map((s) => s.tags.attr)).to.have.members(ATTRS);
    for (const s of series) {
      const offset = ATTRS.indexOf(s.tags.attr);
      expect(s.timestamps.length).to.equal(POINTS / 3);
      // Values offset, offset + 3, ...: an arithmetic series.
      expect(sum(s.values)).to.equal((POINTS / 3) * offset + (3 * (POINTS / 3) * (POINTS / 3 - 1)) / 2);
      for (let i = 1; i < s.timestamps.length; i++) {
        if (s.timestamps[i] !== s.timestamps[i - 1] + 1000) expect.fail(`gap at ${i}`);
      }
    }
  });

  it('reads a range in the middle exactly, for one filtered series', async () => {
    const start = T0 + 12_345 * 1000;
    const end = T0 + 67_890 * 1000;

    const [series] = await temp.store.source.readSeries('device-big', { attr: ['power'] }, start, end);

    expect(series.timestamps.length).to.equal(67_890 - 12_345 + 1);
    expect(series.timestamps[0]).to.equal(start);
    expect(series.values[0]).to.equal(12_345 * 3 + 2);
    expect(series.timestamps[series.timestamps.length - 1]).to.equal(end);
  });

  it('overwrites points spread over the whole history with one late write', async () => {
    const late = Array.from({ length: 500 }, (_, j) => ({ ...pointAt(j * 600), value: -1 }));
    await temp.store.writer.writePoints(late);

    const [series] = await temp.store.source.readSeries('device-big', { attr: ['env.temp'] }, T0, T0 + POINTS * 1000);

    expect(series.timestamps.length).to.equal(POINTS / 3);
    expect(Array.from(series.values).filter((v) => v === -1)).to.have.length(500);
  });
});

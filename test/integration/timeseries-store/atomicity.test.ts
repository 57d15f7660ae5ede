import Database from 'better-sqlite3';
import { expect } from 'chai';
import { join } from 'node:path';
import { TIMESERIES_FILE } from '../../../src/adapters/sqlite-timeseries/sqlite-timeseries-schema';
import { AppError } from '../../../src/core/errors';
import { Point } from '../../../src/timeseries/point';
import { InvalidPointError } from '../../../src/timeseries/validate-points';
import { aPoint, everything, openTempStore, pairsOf, T0, TempStore } from '../../helpers/timeseries-store';

const rejection = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => expect.fail('expected a rejection'),
    (err: unknown) => err,
  );

describe('SQLite time-series store: a write is all or nothing', () => {
  let temp: TempStore;
  beforeEach(() => (temp = openTempStore()));
  afterEach(() => temp.dispose());

  const bad: [string, Partial<Point>, RegExp][] = [
    ['a NaN value', { value: NaN }, /points\[2\]: value must be a finite number/],
    ['an infinite value', { value: -Infinity }, /finite number/],
    ['a timestamp with a fraction', { timestamp: T0 + 0.5 }, /points\[2\]: timestamp must be an integer/],
    ['a timestamp beyond 2^52', { timestamp: 2 ** 52 + 1 }, /timestamp must be an integer of epoch ms within/],
    ['an empty metric', { metric: '' }, /metric must be a non-empty string/],
    ['no tags', { tags: {} }, /at least one tag is required/],
    ['an empty tag value', { tags: { attr: '' } }, /tag "attr" must be a non-empty string/],
  ];
  for (const [what, change, message] of bad) {
    it(`refuses a write with ${what}, naming the point, and stores none of its points`, async () => {
      await temp.store.writer.writePoints([aPoint({ value: 1 })]);
      const batch = [
        aPoint({ timestamp: T0, value: 2 }),
        aPoint({ metric: 'device-new', timestamp: T0 + 1 }),
        { ...aPoint({ timestamp: T0 + 2 }), ...change },
      ];

      const err = await rejection(temp.store.writer.writePoints(batch));

      expect(err).to.be.instanceOf(InvalidPointError).with.property('message').that.matches(message);
      const [series] = await temp.store.source.readSeries('device-1', {}, everything.start, everything.end);
      expect(Array.from(series.values)).to.deep.equal([1]);
      expect(await temp.store.source.metricNames()).to.deep.equal(['device-1']);
    });
  }

  it('accepts an empty write and stores nothing', async () => {
    await temp.store.writer.writePoints([]);

    expect(await temp.store.source.metricNames()).to.deep.equal([]);
  });

  it('rolls back a whole write that fails inside its transaction, new series included', async () => {
    // Fault injection: a trigger, added by a second connection, makes the seal of device-1's head fail midway.
    const tiny = openTempStore({ blockPoints: 4, headPoints: 2 });
    const other = new Database(join(tiny.dataDir, TIMESERIES_FILE));
    try {
      await tiny.store.writer.writePoints([aPoint({ metric: 'device-1', timestamp: T0, value: 1 })]);
      other.exec("CREATE TRIGGER fail BEFORE INSERT ON blocks BEGIN SELECT RAISE(ABORT, 'disk on fire'); END");

      const err = await rejection(
        tiny.store.writer.writePoints([
          aPoint({ metric: 'device-2' }),
          aPoint({ metric: 'device-1', timestamp: T0 + 1, value: 2 }),
        ]),
      );

      expect(err).to.have.property('message', 'disk on fire');
      expect(await tiny.store.source.metricNames()).to.deep.equal(['device-1']);
      other.exec('DROP TRIGGER fail');
      await tiny.store.writer.writePoints([aPoint({ metric: 'device-1', timestamp: T0 + 2, value: 3 })]);
      tiny.reopen();
      expect(await tiny.store.source.metricNames()).to.deep.equal(['device-1']);
      const [series] = await tiny.store.source.readSeries('device-1', {}, everything.start, everything.end);
      expect(pairsOf(series)).to.deep.equal([
        [T0, 1],
        [T0 + 2, 3],
      ]);
    } finally {
      other.close();
      tiny.dispose();
    }
  });

  it('refuses writes and reads after close with SHUTTING_DOWN, and closes twice without error', async () => {
    temp.store.close();
    temp.store.close();

    const write = await rejection(temp.store.writer.writePoints([aPoint()]));
    const read = await rejection(temp.store.source.readSeries('device-1', {}, 0, 1));

    expect(write).to.be.instanceOf(AppError).with.property('code', 'SHUTTING_DOWN');
    expect(read).to.be.instanceOf(AppError).with.property('code', 'SHUTTING_DOWN');
  });
});

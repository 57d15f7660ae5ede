import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { openMigratedSqlite } from '../../../src/adapters/sqlite/sqlite-open';
import { CleanupReport } from '../../../src/adapters/sqlite-timeseries/sqlite-timeseries-cleanup';
import { encodeRun } from '../../../src/adapters/sqlite-timeseries/sqlite-timeseries-codec';
import { TIMESERIES_MIGRATIONS, timeSeriesFileIn } from '../../../src/adapters/sqlite-timeseries/sqlite-timeseries-schema';
import { createSqliteTimeSeriesStore } from '../../../src/adapters/sqlite-timeseries/sqlite-timeseries-store';
import { Point } from '../../../src/timeseries/point';
import { aPoint, everything, openTempStore, pairsOf, T0, TempStore, TINY_LAYOUT } from '../../helpers/timeseries-store';
import { eventually } from '../../helpers/webhook-server';

const read = async (temp: TempStore, metric = 'device-1') =>
  (await temp.store.source.readSeries(metric, {}, everything.start, everything.end)).map((s) => ({ tags: s.tags, points: pairsOf(s) }));
const expiring = (p: Partial<Point> & { attr?: string }, expiresAt: number): Point => ({ ...aPoint(p), expiresAt });
const pageCountOf = (temp: TempStore) => {
  const db = openMigratedSqlite(timeSeriesFileIn(temp.dataDir), TIMESERIES_MIGRATIONS);
  try {
    return db.pragma('page_count', { simple: true }) as number;
  } finally {
    db.close();
  }
};

describe('SQLite time-series store: retention (issue 23 §2)', () => {
  let temp: TempStore;
  let clock: number;
  // Blocks of 4 points and heads of 3, so that expiries cut through sealed blocks and head fragments alike.
  beforeEach(() => {
    clock = T0;
    temp = openTempStore(TINY_LAYOUT, { cleanupEveryMs: 0, now: () => clock });
  });
  afterEach(() => temp.dispose());

  it('never answers a point once its expiry has passed, from blocks and head alike, and counts only blocks still live', async () => {
    for (let i = 0; i < 10; i++) await temp.store.writer.writePoints([expiring({ timestamp: T0 + i, value: i }, T0 + 100 + i)]);
    expect((await read(temp))[0].points).to.have.length(10);

    clock = T0 + 104;

    expect(await read(temp)).to.deep.equal([{ tags: { attr: 'temp' }, points: [5, 6, 7, 8, 9].map((i) => [T0 + i, i]) }]);
    // The first block (points 0-3) has wholly expired: not read, not counted; the second is read whole.
    expect(await temp.store.source.countPoints!('device-1', {}, everything.start, everything.end)).to.be.at.most(6);
    clock = T0 + 110;
    expect(await read(temp)).to.deep.equal([]);
  });

  it('lets an expired point take the older value it replaced with it', async () => {
    await temp.store.writer.writePoints([aPoint({ timestamp: T0, value: 1 }), aPoint({ timestamp: T0 + 1, value: 1 })]);
    await temp.store.writer.writePoints([expiring({ timestamp: T0, value: 2 }, T0 + 50)]);
    expect((await read(temp))[0].points).to.deep.equal([[T0, 2], [T0 + 1, 1]]);

    clock = T0 + 50;

    expect((await read(temp))[0].points).to.deep.equal([[T0 + 1, 1]]);
    temp.store.cleanup();
    expect((await read(temp))[0].points).to.deep.equal([[T0 + 1, 1]]);
  });

  it('leaves series whose points have all expired out of metric names and tag listings, before any cleanup', async () => {
    await temp.store.writer.writePoints([expiring({ metric: 'short', attr: 'temp', timestamp: T0 }, T0 + 10)]);
    await temp.store.writer.writePoints([expiring({ metric: 'short', attr: 'humid', timestamp: T0 }, T0 + 1000)]);
    await temp.store.writer.writePoints([aPoint({ metric: 'kept', timestamp: T0 })]);

    clock = T0 + 10;
    expect(await temp.store.source.metricNames()).to.deep.equal(['kept', 'short']);
    expect(await temp.store.source.tagsOf('short')).to.deep.equal({ attr: ['humid'] });

    clock = T0 + 1000;
    expect(await temp.store.source.metricNames()).to.deep.equal(['kept']);
    expect(await temp.store.source.tagsOf('short')).to.deep.equal({});
  });

  it('does not store a point already expired when it is written (a back-filled one)', async () => {
    clock = T0 + 5000;

    await temp.store.writer.writePoints([expiring({ timestamp: T0, value: 1 }, T0 + 1000), aPoint({ attr: 'kept', timestamp: T0 })]);

    expect(await read(temp)).to.deep.equal([{ tags: { attr: 'kept' }, points: [[T0, 1]] }]);
    expect(await temp.store.source.tagsOf('device-1')).to.deep.equal({ attr: ['kept'] });
  });

  it('cleans up: drops expired blocks, seals expired heads, forgets empty series, keeps everything live, across a restart', async () => {
    for (let i = 0; i < 10; i++) await temp.store.writer.writePoints([expiring({ attr: 'short', timestamp: T0 + i, value: i }, T0 + 100)]);
    for (let i = 0; i < 6; i++) await temp.store.writer.writePoints([expiring({ attr: 'mixed', timestamp: T0 + i, value: i }, T0 + (i < 3 ? 100 : 900))]);
    for (let i = 0; i < 5; i++) await temp.store.writer.writePoints([aPoint({ attr: 'forever', timestamp: T0 + i, value: i })]);
    clock = T0 + 100;

    const report = temp.store.cleanup();

    expect(report.blocksDropped).to.be.greaterThan(0);
    expect(report.headsSealed).to.be.greaterThan(0);
    expect(report.seriesForgotten).to.equal(1);
    const expected = [
      { tags: { attr: 'forever' }, points: [0, 1, 2, 3, 4].map((i) => [T0 + i, i]) },
      { tags: { attr: 'mixed' }, points: [3, 4, 5].map((i) => [T0 + i, i]) },
    ];
    expect(await read(temp)).to.deep.equal(expected);
    expect(await temp.store.source.tagsOf('device-1')).to.deep.equal({ attr: ['forever', 'mixed'] });
    temp.reopen();
    expect(await read(temp)).to.deep.equal(expected);
    expect(temp.store.cleanup()).to.deep.include({ blocksDropped: 0, seriesForgotten: 0 });
  });

  it('drops a backlog of expired blocks larger than one step of the cleanup (2000 blocks) whole', async () => {
    const tags = { attr: 'many' };
    await temp.store.writer.writePoints(Array.from({ length: 10_000 }, (_, i) => ({ metric: 'device-1', tags, timestamp: T0 + i, value: i, expiresAt: T0 + 20_000 })));
    await temp.store.writer.writePoints([aPoint({ attr: 'kept', timestamp: T0 })]);
    clock = T0 + 20_000;

    const report = temp.store.cleanup();

    expect(report.blocksDropped).to.equal(2500);
    expect(report.seriesForgotten).to.equal(1);
    expect(await temp.store.source.tagsOf('device-1')).to.deep.equal({ attr: ['kept'] });
  });

  it('gives the pages of expired blocks back to the file system', async () => {
    temp.dispose();
    temp = openTempStore(undefined, { cleanupEveryMs: 0, now: () => clock });
    const batch = (attr: string, from: number, expiresAt?: number): Point[] => {
      const tags = { attr };
      return Array.from({ length: 10_000 }, (_, i) => ({ metric: 'device-1', tags, timestamp: T0 + (from + i) * 1000, value: i / 7, ...(expiresAt && { expiresAt }) }));
    };
    for (let k = 0; k < 6; k++) await temp.store.writer.writePoints(batch('short', k * 10_000, T0 + 3_600_000));
    await temp.store.writer.writePoints(batch('kept', 0));
    temp.reopen();
    const before = pageCountOf(temp);

    clock = T0 + 3_600_000;
    const report = temp.store.cleanup();
    temp.reopen();

    const after = pageCountOf(temp);
    expect(report.pagesFreed).to.be.greaterThan(0);
    // 60,000 expired points of 70,000: the file keeps about a seventh of its pages.
    expect(after).to.be.below(before / 3);
    expect((await read(temp)).map((s) => [s.tags.attr, s.points.length])).to.deep.equal([['kept', 10_000]]);
  });
});

describe('SQLite time-series store: retention on the real clock', () => {
  it('drops a point from answers once its short ttl is over, and a scheduled cleanup reclaims it', async () => {
    const reports: (CleanupReport | Error)[] = [];
    const temp = openTempStore(TINY_LAYOUT, { cleanupEveryMs: 100, onCleanup: (r) => reports.push(r) });
    try {
      const expiresAt = Date.now() + 400;
      await temp.store.writer.writePoints([expiring({ timestamp: Date.now(), value: 7 }, expiresAt), aPoint({ attr: 'kept' })]);
      expect((await read(temp)).map((s) => s.tags.attr)).to.deep.equal(['kept', 'temp']);

      const attrs = async () => (await read(temp)).map((s) => s.tags.attr);
      await eventually(attrs, (found) => found.length === 1, 2000);

      expect(Date.now()).to.be.at.least(expiresAt);
      expect(await attrs()).to.deep.equal(['kept']);
      await eventually(async () => reports, (seen) => seen.some((r) => !(r instanceof Error) && r.headsSealed > 0), 2000);
    } finally {
      temp.dispose();
    }
  });
});

describe('SQLite time-series store: a file written before retention', () => {
  it('reads its points as kept until deleted, and the cleanup leaves them alone', async () => {
    const temp = openTempStore(TINY_LAYOUT);
    const dataDir = temp.dataDir;
    temp.store.close();
    // A file at the first schema version, with one sealed block and one head fragment as that release wrote them.
    for (const suffix of ['', '-wal', '-shm']) rmSync(timeSeriesFileIn(dataDir) + suffix, { force: true });
    const old = openMigratedSqlite(timeSeriesFileIn(dataDir), TIMESERIES_MIGRATIONS.slice(0, 1));
    const seriesId = Number(old.prepare('INSERT INTO series (metric, tags) VALUES (?, ?)').run('device-1', '[["attr","temp"]]').lastInsertRowid);
    for (const [table, run] of [['blocks', [0, 1, 2, 3]], ['head', [4]]] as const) {
      const e = encodeRun({ timestamps: Float64Array.from(run, (i) => T0 + i), values: Float64Array.from(run) });
      old.prepare(`INSERT INTO ${table} (series_id, first_ts, last_ts, count, timestamps, "values") VALUES (?, ?, ?, ?, ?, ?)`)
        .run(seriesId, e.firstTs, e.lastTs, e.count, e.timestamps, e.values);
    }
    old.close();

    temp.store = createSqliteTimeSeriesStore(dataDir, TINY_LAYOUT, { cleanupEveryMs: 0, now: () => T0 + 1e12 });
    try {
      expect(temp.store.cleanup()).to.deep.equal({ headsSealed: 0, blocksDropped: 0, seriesForgotten: 0, pagesFreed: 0 });
      expect(await read(temp)).to.deep.equal([{ tags: { attr: 'temp' }, points: [0, 1, 2, 3, 4].map((i) => [T0 + i, i]) }]);
      expect(await temp.store.source.metricNames()).to.deep.equal(['device-1']);
    } finally {
      temp.dispose();
    }
  });
});

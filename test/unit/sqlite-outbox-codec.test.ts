import { expect } from 'chai';
import { decodeOutboxRow, encodeOutboxRow } from '../../src/adapters/sqlite/sqlite-outbox-codec';
import { Point } from '../../src/timeseries/point';

const point = (metric: string, attr: string, timestamp: number, value: number): Point => ({ metric, tags: { attr }, timestamp, value });

describe('outbox rows (sqlite-outbox-codec.ts)', () => {
  it('gives back every point of a write, each series in the order written', () => {
    const points = [
      point('d1', 'temp', 1000, 21.5),
      point('d1', 'humid', 1000, 40),
      point('d1', 'temp', 2000, -3.25),
      point('d1', 'env.co2', 2000, 1e-9),
      point('d1', 'humid', 2000, 41),
      point('d1', 'temp', 2000, 22),
    ];

    const decoded = decodeOutboxRow(encodeOutboxRow(points));

    const bySeries = (ps: Point[], attr: string) => ps.filter((p) => p.tags.attr === attr);
    expect(decoded).to.have.length(points.length);
    for (const attr of ['temp', 'humid', 'env.co2']) expect(bySeries(decoded, attr)).to.deep.equal(bySeries(points, attr));
  });

  it('keeps metrics and tags of any text, several tags, and the extremes of timestamps and values', () => {
    const points: Point[] = [
      { metric: 'ผู้ใช้/ö', tags: { attr: 'a"b\\c', site: 'x' }, timestamp: -(2 ** 52), value: Number.MAX_VALUE },
      { metric: 'ผู้ใช้/ö', tags: { attr: 'a"b\\c', site: 'x' }, timestamp: 2 ** 52, value: -Number.MIN_VALUE },
      { metric: 'other', tags: { attr: 'v' }, timestamp: 0, value: 0 },
    ];

    expect(decodeOutboxRow(encodeOutboxRow(points))).to.deep.equal(points);
  });

  it('keeps each point\'s expiry, and its absence, beside points of series without any (issue 23 §2)', () => {
    const points: Point[] = [
      { ...point('d1', 'temp', 1000, 21.5), expiresAt: 61_000 },
      point('d1', 'temp', 2000, 22),
      point('d1', 'humid', 1000, 40),
      { ...point('d2', 'temp', 3000, 1), expiresAt: 3001 },
    ];

    const row = encodeOutboxRow(points);

    expect(row.readUInt8(0)).to.equal(2);
    expect(decodeOutboxRow(row)).to.deep.equal(points);
  });

  it('writes rows without expiries in the first format, which a release before retention reads', () => {
    const row = encodeOutboxRow([point('d1', 'temp', 1000, 21.5)]);

    expect(row.readUInt8(0)).to.equal(1);
    expect(decodeOutboxRow(row)).to.deep.equal([point('d1', 'temp', 1000, 21.5)]);
  });

  it('reads rows written before the blob format, as JSON text', () => {
    const points = [point('d1', 'temp', 1000, 21.5), point('d1', 'humid', 1000, 40)];

    expect(decodeOutboxRow(JSON.stringify(points))).to.deep.equal(points);
  });
});

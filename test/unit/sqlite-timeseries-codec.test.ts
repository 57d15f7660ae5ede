import { expect } from 'chai';
import { decodeRun, decodeTimestamps, encodeRun } from '../../src/adapters/sqlite-timeseries/sqlite-timeseries-codec';
import { Run } from '../../src/adapters/sqlite-timeseries/sqlite-timeseries-runs';

const run = (timestamps: number[], values = timestamps.map((_, i) => i / 3)): Run => ({
  timestamps: Float64Array.from(timestamps),
  values: Float64Array.from(values),
});

const roundTrip = (r: Run) => {
  const e = encodeRun(r);
  return decodeRun(e.firstTs, e.count, e.timestamps, e.values);
};

describe('time-series block encoding', () => {
  it('round-trips regular, irregular, negative and extreme timestamps exactly', () => {
    for (const timestamps of [
      [1_700_000_000_000],
      [0, 1, 2, 1000, 2000, 3000],
      [-(2 ** 52), -1, 0, 127, 128, 16_383, 16_384, 2 ** 52],
      [1, 2 ** 31, 2 ** 32 + 5, 2 ** 40],
    ]) {
      const r = run(timestamps);
      const back = roundTrip(r);
      expect(Array.from(back.timestamps)).to.deep.equal(timestamps);
      expect(Array.from(back.values)).to.deep.equal(Array.from(r.values));
    }
  });

  it('takes 2 bytes a point for timestamps one second apart', () => {
    const e = encodeRun(run(Array.from({ length: 1001 }, (_, i) => 1_700_000_000_000 + i * 1000)));

    expect(e.timestamps.length).to.equal(2000);
    expect(e.values.length).to.equal(1001 * 8);
  });

  it('copies the values, so that a caller changing its array later changes nothing stored', () => {
    const r = run([1, 2], [10, 20]);
    const e = encodeRun(r);
    r.values[0] = 99;

    expect(Array.from(decodeRun(e.firstTs, e.count, e.timestamps, e.values).values)).to.deep.equal([10, 20]);
  });

  it('stops decoding at the first timestamp after a bound', () => {
    const e = encodeRun(run([10, 20, 30, 40]));
    const out = new Float64Array(4);

    expect(decodeTimestamps(e.firstTs, e.count, e.timestamps, out, 0, 25)).to.equal(2);
    expect(Array.from(out.subarray(0, 2))).to.deep.equal([10, 20]);
    expect(decodeTimestamps(e.firstTs, e.count, e.timestamps, out, 0, 5)).to.equal(0);
  });

  it('refuses a timestamps blob that does not match its count', () => {
    const e = encodeRun(run([10, 20, 30]));

    expect(() => decodeRun(e.firstTs, 4, e.timestamps, e.values)).to.throw(/corrupt/);
    expect(() => decodeRun(e.firstTs, 2, e.timestamps, e.values)).to.throw(/corrupt/);
  });
});

describe('time-series block encoding: expiries (retention, issue 23 §2)', () => {
  const withExpiries = (timestamps: number[], expiries: number[]): Run => ({ ...run(timestamps), expiries: Float64Array.from(expiries) });
  const roundTripped = (r: Run) => {
    const e = encodeRun(r);
    return { e, decoded: decodeRun(e.firstTs, e.count, e.timestamps, e.values, e.expiries) };
  };

  it('round-trips each point\'s expiry, never-expiring ones mixed in, and says when the last one expires', () => {
    const r = withExpiries([1000, 2000, 3000, 4000, 5000], [61_000, 62_000, Infinity, 4001, 4_000_000_000_000]);

    const { e, decoded } = roundTripped(r);

    expect(Array.from(decoded.expiries!)).to.deep.equal(Array.from(r.expiries!));
    expect(e.expiresAt).to.equal(null);
    expect(roundTripped(withExpiries([1000, 2000], [5000, 3000])).e.expiresAt).to.equal(5000);
  });

  it('takes one pair for points that share a ttl, and nothing when no point expires', () => {
    const timestamps = Array.from({ length: 2048 }, (_, i) => 1_700_000_000_000 + i * 1000);

    const shared = encodeRun(withExpiries(timestamps, timestamps.map((t) => t + 30 * 86_400_000)));
    const never = encodeRun(withExpiries(timestamps, timestamps.map(() => Infinity)));

    expect(shared.expiries!.length).to.be.at.most(12);
    expect(shared.expiresAt).to.equal(timestamps[2047] + 30 * 86_400_000);
    expect([never.expiries, never.expiresAt]).to.deep.equal([null, null]);
    expect([encodeRun(run(timestamps)).expiries, encodeRun(run(timestamps)).expiresAt]).to.deep.equal([null, null]);
  });
});

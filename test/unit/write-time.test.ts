import { expect } from 'chai';
import { AppError } from '../../src/core/errors';
import { resolveWriteTime } from '../../src/shadows/write-time';

const NOW = 1_700_000_000_000;
const resolve = (ts: number | undefined) => resolveWriteTime(ts, NOW, 'INVALID_TIMESTAMP', 'ts');

describe('write time resolution (spec 4.6 rules 1-3)', () => {
  it('uses the current time when no time is given', () => {
    expect(resolve(undefined)).to.equal(NOW);
  });

  it('treats values below 8388608000 as relative to now, negative ones in the past', () => {
    expect(resolve(0)).to.equal(NOW);
    expect(resolve(-90_000)).to.equal(NOW - 90_000);
    expect(resolve(5_000)).to.equal(NOW + 5_000);
    expect(resolve(-8_388_607_999)).to.equal(NOW - 8_388_607_999);
  });

  it('treats 8388608000 and above as absolute epoch milliseconds', () => {
    expect(resolve(8_388_608_000)).to.equal(8_388_608_000);
    expect(resolve(1_600_000_000_000)).to.equal(1_600_000_000_000);
  });

  it('refuses times more than 24 hours ahead and times before 1970', () => {
    expect(() => resolve(NOW + 25 * 3600_000)).to.throw(AppError, /future/);
    expect(() => resolve(-NOW - 1)).to.throw(AppError, /1970/);
    // Just under the threshold is still relative, so it lands 97 days ahead: refused like any far-future time.
    expect(() => resolve(8_388_607_999)).to.throw(AppError, /future/);
  });
});

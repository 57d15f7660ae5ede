import { expect } from 'chai';
import { createKeyedRateLimiter } from '../../src/ratelimit/keyed-rate-limiter';

describe('per-key rate limiter', () => {
  /** A limiter on a clock the test moves. */
  function limiterAt(options: { ratePerSecond: number; burst: number; sweepEveryMs?: number }) {
    const clock = { now: 0 };
    return { clock, limiter: createKeyedRateLimiter({ ...options, now: () => clock.now }) };
  }

  it('keeps one bucket per key: a key over its limit does not slow another', () => {
    const { limiter } = limiterAt({ ratePerSecond: 1, burst: 2 });

    const flood = [1, 2, 3, 4].map(() => limiter.take('noisy').allowed);

    expect(flood).to.deep.equal([true, true, false, false]);
    expect(limiter.take('quiet').allowed).to.equal(true);
  });

  it('takes tokens a key spent on another node, owing at most one burst, which refills as any bucket does', () => {
    const { clock, limiter } = limiterAt({ ratePerSecond: 1, burst: 2 });

    limiter.spend('k', 10);

    expect(limiter.take('k').allowed, 'owes 2 after a spend of 10 from a full bucket of 2').to.equal(false);
    clock.now += 2_999;
    expect(limiter.take('k').allowed).to.equal(false);
    clock.now += 1;
    expect(limiter.take('k').allowed, 'back to one token after 3 s: 2 owed, then 1').to.equal(true);
  });

  it('tells a refused key to retry after whole seconds, at least 1', () => {
    const { limiter } = limiterAt({ ratePerSecond: 0.25, burst: 1 });
    limiter.take('k');

    expect(limiter.take('k')).to.deep.equal({ allowed: false, retryAfterSeconds: 4 });
  });

  it('rounds a wait under a second up to 1 second', () => {
    const { limiter } = limiterAt({ ratePerSecond: 50, burst: 1 });
    limiter.take('k');

    expect(limiter.take('k')).to.deep.equal({ allowed: false, retryAfterSeconds: 1 });
  });

  it('allows everything and keeps nothing when the rate is 0', () => {
    const { limiter } = limiterAt({ ratePerSecond: 0, burst: 1 });

    for (let i = 0; i < 1000; i++) expect(limiter.take(`k${i % 3}`).allowed).to.equal(true);
    expect(limiter.size()).to.equal(0);
  });

  it('drops the buckets of keys idle long enough to be full again', () => {
    const { clock, limiter } = limiterAt({ ratePerSecond: 1, burst: 2, sweepEveryMs: 1000 });
    for (let i = 0; i < 100; i++) limiter.take(`device-${i}`);
    expect(limiter.size()).to.equal(100);

    clock.now = 5000;
    limiter.take('active');

    expect(limiter.size()).to.equal(1);
  });

  it('keeps the buckets of keys that are still refilling', () => {
    const { clock, limiter } = limiterAt({ ratePerSecond: 1, burst: 10, sweepEveryMs: 1000 });
    for (let i = 0; i < 10; i++) limiter.take('busy');

    clock.now = 2000;
    limiter.take('other');

    expect(limiter.size()).to.equal(2);
  });

  it('refuses a negative rate or a burst below 1', () => {
    expect(() => createKeyedRateLimiter({ ratePerSecond: -1, burst: 1 })).to.throw(RangeError);
    expect(() => createKeyedRateLimiter({ ratePerSecond: 1, burst: 0 })).to.throw(RangeError);
  });
});

import { expect } from 'chai';
import { BucketLimits, BucketState, fullBucket, takeToken, tokensAt } from '../../src/ratelimit/token-bucket';

describe('token bucket', () => {
  const limits: BucketLimits = { ratePerSecond: 2, burst: 3 };

  /** Takes `n` tokens at `at`, returning how many were allowed and the last state. */
  function takeMany(state: BucketState, n: number, at: number) {
    let allowed = 0;
    for (let i = 0; i < n; i++) {
      const result = takeToken(state, limits, at);
      state = result.state;
      if (result.allowed) allowed++;
    }
    return { allowed, state };
  }

  it('allows a burst of `burst` requests at once, then refuses', () => {
    const { allowed, state } = takeMany(fullBucket(limits, 0), 5, 0);

    expect(allowed).to.equal(3);
    const next = takeToken(state, limits, 0);
    expect(next.allowed).to.equal(false);
  });

  it('says how long until one token is back', () => {
    const { state } = takeMany(fullBucket(limits, 0), 3, 0);

    const refused = takeToken(state, limits, 100);

    // 100 ms at 2 tokens/s gave 0.2 tokens; 0.8 more take 400 ms.
    expect(refused).to.include({ allowed: false });
    expect(refused.allowed === false && refused.retryAfterMs).to.be.closeTo(400, 1e-9);
  });

  it('refills continuously at the rate and never above the burst', () => {
    const { state } = takeMany(fullBucket(limits, 0), 3, 0);

    expect(tokensAt(state, limits, 500)).to.be.closeTo(1, 1e-9);
    expect(takeToken(state, limits, 500).allowed).to.equal(true);
    expect(tokensAt(state, limits, 60_000)).to.equal(3);
  });

  it('adds nothing when the clock goes backwards', () => {
    const { state } = takeMany(fullBucket(limits, 1000), 3, 1000);

    expect(tokensAt(state, limits, 0)).to.equal(0);
  });
});

import { expect } from 'chai';
import { createFailureThrottle, FAILURE_LIMITS } from '../../src/ratelimit/failure-throttle';

const LIMITS = { ...FAILURE_LIMITS, windowMs: 60_000, perPair: 3, perSource: 5, perTarget: 4, maxKeys: 1000 };

describe('the failure throttle: guessing credentials (docs/operations.md "Guessing")', () => {
  let clock = 0;
  const now = () => clock;
  beforeEach(() => {
    clock = 1_000_000;
  });

  it('refuses a source for a target after perPair failures, for the rest of the window, and not other sources', () => {
    const throttle = createFailureThrottle(now, LIMITS);
    for (let i = 0; i < 3; i++) {
      expect(throttle.check('10.0.0.1', 'dev-a')).to.equal(undefined);
      throttle.failed('10.0.0.1', 'dev-a');
    }
    clock += 20_000;

    expect(throttle.check('10.0.0.1', 'dev-a')).to.deep.equal({ why: 'pair', retryAfterSeconds: 40 });
    expect(throttle.check('10.0.0.2', 'dev-a')).to.equal(undefined);
    expect(throttle.check('10.0.0.1', 'dev-b')).to.equal(undefined);
    clock += 40_000;
    expect(throttle.check('10.0.0.1', 'dev-a')).to.equal(undefined);
  });

  it('refuses a source that fails against many targets once it reaches perSource', () => {
    const throttle = createFailureThrottle(now, LIMITS);
    for (let i = 0; i < 5; i++) throttle.failed('10.0.0.9', `dev-${i}`);

    expect(throttle.check('10.0.0.9', 'dev-new')).to.include({ why: 'source' });
    expect(throttle.check('10.0.0.8', 'dev-new')).to.equal(undefined);
  });

  it('over perTarget, refuses only the sources that already failed against the target: a clean source still gets in', () => {
    const throttle = createFailureThrottle(now, LIMITS);
    for (let i = 0; i < 4; i++) throttle.failed(`10.1.0.${i}`, 'dev-a');

    expect(throttle.check('10.1.0.0', 'dev-a')).to.include({ why: 'target' });
    expect(throttle.check('192.168.7.7', 'dev-a')).to.equal(undefined);
  });

  it('forgets the oldest windows beyond maxKeys, so a flood of sources cannot grow it without bound', () => {
    const throttle = createFailureThrottle(now, { ...LIMITS, perPair: 1, maxKeys: 2 });
    throttle.failed('a', 't1');
    throttle.failed('b', 't2');
    throttle.failed('c', 't3');

    expect(throttle.check('a', 't1')).to.equal(undefined);
    expect(throttle.check('c', 't3')).to.include({ why: 'pair' });
  });
});

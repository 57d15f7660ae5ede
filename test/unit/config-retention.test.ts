import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config/config';

const problemOf = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).to.be.instanceOf(ConfigError);
    return (err as Error).message;
  }
  return expect.fail('expected a ConfigError');
};

describe('configuration: POINT_RETENTION, POINT_CLEANUP_INTERVAL_MS (issue 23 §2)', () => {
  it('keeps points until deleted by default, and reclaims expired ones every 5 minutes', () => {
    expect(loadConfig({}).retention).to.deep.equal({ defaultMs: undefined, cleanupEveryMs: 300_000 });
    expect(loadConfig({ POINT_RETENTION: 'unlimited' }).retention.defaultMs).to.equal(undefined);
  });

  it('reads a duration in NETPIE ttl units, a bare number being milliseconds', () => {
    expect(loadConfig({ POINT_RETENTION: '30d' }).retention.defaultMs).to.equal(30 * 86_400_000);
    expect(loadConfig({ POINT_RETENTION: '1y' }).retention.defaultMs).to.equal(365 * 86_400_000);
    expect(loadConfig({ POINT_RETENTION: '3000' }).retention.defaultMs).to.equal(3000);
    expect(loadConfig({ POINT_CLEANUP_INTERVAL_MS: '60000' }).retention.cleanupEveryMs).to.equal(60_000);
  });

  it('refuses other words, unknown units, zero and more than 20 years, naming the variable', () => {
    expect(problemOf({ POINT_RETENTION: 'forever' })).to.contain('POINT_RETENTION: must be unlimited, or a duration that must be a whole number');
    expect(problemOf({ POINT_RETENTION: '2w' })).to.contain('POINT_RETENTION');
    expect(problemOf({ POINT_RETENTION: '0d' })).to.contain('POINT_RETENTION: must be unlimited, or a duration that must be at least 1 ms');
    expect(problemOf({ POINT_RETENTION: '21y' })).to.contain('must be at most 20y');
    expect(problemOf({ POINT_CLEANUP_INTERVAL_MS: '0' })).to.contain('POINT_CLEANUP_INTERVAL_MS');
  });
});

import { expect } from 'chai';
import { ReadinessCheck } from '../../src/health/port';
import { checkReadiness } from '../../src/health/readiness';

const passing = (name: string): ReadinessCheck => ({ name, check: async () => undefined });

describe('readiness checks', () => {
  it('is ready when every check passes, with a result per check', async () => {
    const report = await checkReadiness([passing('sqlite'), passing('mqtt')]);

    expect(report.ready).to.equal(true);
    expect(Object.keys(report.checks)).to.deep.equal(['sqlite', 'mqtt']);
    expect(report.checks.sqlite).to.include({ status: 'ok' });
  });

  it('is not ready when one check rejects, and says which and why', async () => {
    const failing: ReadinessCheck = { name: 'cassandra', check: async () => Promise.reject(new Error('no hosts available')) };

    const report = await checkReadiness([passing('sqlite'), failing]);

    expect(report.ready).to.equal(false);
    expect(report.checks.sqlite.status).to.equal('ok');
    expect(report.checks.cassandra).to.include({ status: 'fail', error: 'no hosts available' });
  });

  it('counts a check that throws before returning a promise as failed', async () => {
    const throwing: ReadinessCheck = {
      name: 'broken',
      check: () => {
        throw new Error('closed');
      },
    };

    const report = await checkReadiness([throwing]);

    expect(report.checks.broken).to.include({ status: 'fail', error: 'closed' });
  });

  it('fails a check that does not answer in time instead of waiting for it', async () => {
    const hanging: ReadinessCheck = { name: 'kairosdb', check: () => new Promise(() => undefined) };
    const started = Date.now();

    const report = await checkReadiness([hanging, passing('sqlite')], 50);

    expect(Date.now() - started).to.be.below(1000);
    expect(report.ready).to.equal(false);
    expect(report.checks.kairosdb).to.include({ status: 'fail', error: 'no answer within 50 ms' });
  });
});

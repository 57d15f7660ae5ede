import { expect } from 'chai';
import { ReadinessCheck } from '../../../src/health/port';
import { startStack, Stack } from '../../helpers/stack';

describe('GET /healthz and GET /readyz', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('GET /healthz answers 200 {"status":"ok"} without credentials', async () => {
    const res = await stack.http('GET', '/healthz');

    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ status: 'ok' });
  });

  it('GET /readyz answers 200 once every backend answers: SQLite, the time-series store and the MQTT listener', async () => {
    const res = await stack.http('GET', '/readyz');

    expect(res.status, res.text).to.equal(200);
    expect(res.body.status).to.equal('ok');
    // TEST_STORE=cassandra (test/helpers/cassandra.ts) adds the store's own check and the node's registration in it.
    const store = process.env.TEST_STORE === 'cassandra' ? ['cassandra', 'node-registration'] : [];
    expect(Object.keys(res.body.checks)).to.have.members(['sqlite', ...store, 'timeseries', 'mqtt']);
    for (const result of Object.values<{ status: string; ms: number }>(res.body.checks)) {
      expect(result.status).to.equal('ok');
      expect(result.ms).to.be.a('number').at.least(0);
    }
  });
});

describe('GET /readyz with a backend down', () => {
  // A fault we cannot cause in a real embedded backend without breaking the stack, injected through the composition.
  const unreachable: ReadinessCheck = { name: 'kairosdb', check: () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.9:8080')) };
  let stack: Stack;
  before(async () => {
    stack = await startStack({ readinessChecks: [unreachable] });
  });
  after(() => stack.stop());

  it('answers 503 naming the failing check, while the others still pass', async () => {
    const res = await stack.http('GET', '/readyz');

    expect(res.status).to.equal(503);
    expect(res.body.status).to.equal('unavailable');
    expect(res.body.checks.kairosdb.status).to.equal('fail');
    expect(res.body.checks.sqlite.status).to.equal('ok');
    expect(res.body.checks.mqtt.status).to.equal('ok');
  });

  it('keeps the reason out of the unauthenticated answer (it goes to the log)', async () => {
    const res = await stack.http('GET', '/readyz');

    expect(res.body.checks.kairosdb).to.have.all.keys('status', 'ms');
    expect(res.text).not.to.contain('ECONNREFUSED');
  });

  it('still answers GET /healthz with 200: the process is up', async () => {
    expect((await stack.http('GET', '/healthz')).status).to.equal(200);
  });
});

import { expect } from 'chai';
import { createConnectionLog } from '../../../src/connections/connection-log';
import { CONNECTION_LOG_LIMITS } from '../../../src/connections/limits';

/** The bounds of one node's history (src/connections/limits.ts), on the log alone: no server needed. */
describe('connection log bounds', () => {
  const limits = { eventsPerDevice: 3, devices: 2, detailLength: 10 };
  let clock = 0;
  const log = () => createConnectionLog({ nodeId: 'n1', limits, now: () => ++clock * 1000 });

  it('keeps the newest events of a device, newest first', () => {
    const l = log();
    for (const reason of ['a', 'b', 'c', 'd']) l.record('dev', { kind: 'refused', reason });
    expect(l.historyOf('dev').map((e) => e.reason)).to.deep.equal(['d', 'c', 'b']);
  });

  it('evicts the device whose last event is the oldest when one too many has a history', () => {
    const l = log();
    l.record('first', { kind: 'connected' });
    l.record('second', { kind: 'connected' });
    l.record('first', { kind: 'disconnected' });
    l.record('third', { kind: 'connected' });
    expect(l.historyOf('second')).to.deep.equal([]);
    expect(l.historyOf('first')).to.have.length(2);
    expect(l.historyOf('third')).to.have.length(1);
  });

  it('cuts a long detail and stamps each event with its node and time', () => {
    const l = log();
    l.record('dev', { kind: 'disconnected', detail: 'x'.repeat(50) });
    const [event] = l.historyOf('dev');
    expect(event.detail).to.equal('x'.repeat(10));
    expect(event.node).to.equal('n1');
    expect(event.at).to.equal(new Date(clock * 1000).toISOString());
  });

  it('states its defaults', () => {
    expect(CONNECTION_LOG_LIMITS).to.include({ eventsPerDevice: 50, devices: 2_000, gatherTimeoutMs: 1500 });
  });
});

import { expect } from 'chai';
import pino from 'pino';
import { ChangeFeed } from '../../src/cluster/port';
import { AppError } from '../../src/core/errors';
import { createClusterQuotaService } from '../../src/quotas/cluster-quota-service';
import { blockFor, GRANTS } from '../../src/quotas/grants';
import { QuotaLimitStore, QuotaService } from '../../src/quotas/port';
import { memoryFeed, memoryLedger, memoryLimits } from '../helpers/memory-ledger';

const JAN = Date.UTC(2025, 0, 15);
const MONTH = '2025-01';
const logger = pino({ level: 'silent' });

/** Nodes of one cluster, each a quota service over one ledger, one limit store and one notice feed. */
function aCluster(count: number, opts: { now?: () => number } = {}) {
  const store = memoryLedger();
  const limits = memoryLimits();
  const feed = memoryFeed();
  const started: QuotaService[] = [];
  const startNode = (node: string, changes: ChangeFeed = feed.node(), limitStore: QuotaLimitStore = limits) => {
    const service = createClusterQuotaService({
      limits: limitStore,
      ledger: store.ledger,
      node,
      changes,
      now: opts.now ?? (() => JAN),
      logger,
      limitsMaxAgeMs: 5000,
    });
    started.push(service);
    return service;
  };
  const nodes = Array.from({ length: count }, (_, i) => startNode(`n${i + 1}`));
  return { nodes, store, feed, startNode, closeAll: () => Promise.all(started.map((s) => s.close())) };
}

const outcomes = async (calls: Promise<unknown>[]) => {
  const settled = await Promise.allSettled(calls);
  for (const s of settled) if (s.status === 'rejected' && !(s.reason instanceof AppError && s.reason.code === 'QUOTA_EXCEEDED')) throw s.reason;
  return { passed: settled.filter((s) => s.status === 'fulfilled').length, refused: settled.filter((s) => s.status === 'rejected').length };
};
const usedOf = async (node: QuotaService, quota: 'shadowOps' | 'messages' | 'apiCalls') => (await node.report('p', MONTH)).quotas[quota].used;

describe('quotas across the nodes of a cluster (src/quotas/cluster-quota-service.ts)', () => {
  it('takes blocks of at most 1/16 of what is left, at most 1000, and never less than asked', () => {
    expect([blockFor(100_000, 1), blockFor(1600, 1), blockFor(30, 1), blockFor(30, 5), blockFor(3, 5)]).to.deep.equal([GRANTS.maxBlock, 100, 1, 5, 0]);
  });

  it('lets exactly the limit of concurrent shadow writes through three nodes pass, and every node reports the same count', async () => {
    const { nodes, closeAll } = aCluster(3);
    await nodes[0].setLimits('p', { shadowOps: 30 });

    const result = await outcomes(Array.from({ length: 90 }, (_, i) => nodes[i % 3].reserve('p', { shadowOps: 1 }, JAN)));
    await Promise.all(nodes.map((n) => n.flush()));

    expect(result).to.deep.equal({ passed: 30, refused: 60 });
    for (const node of nodes) expect(await usedOf(node, 'shadowOps')).to.equal(30);
    await closeAll();
  });

  it('lets 6 of 12 writes alternating between two nodes pass under a limit of 6 set through the first', async () => {
    const { nodes, closeAll } = aCluster(2);
    await nodes[0].setLimits('p', { shadowOps: 6 });

    const passed: number[] = [];
    for (let i = 0; i < 12; i++) {
      try {
        await nodes[i % 2].spend('p', { shadowOps: 1 }, JAN);
        passed.push(i);
      } catch (err) {
        if (!(err instanceof AppError && err.code === 'QUOTA_EXCEEDED')) throw err;
      }
    }

    expect(passed).to.deep.equal([0, 1, 2, 3, 4, 5]);
    await closeAll();
  });

  it('never passes a large limit with concurrent charges; what nodes held unspent is given back when they stop', async () => {
    const { nodes, store, startNode, closeAll } = aCluster(3);
    const limit = 5000;
    await nodes[0].setLimits('p', { apiCalls: limit });

    const first = await outcomes(Array.from({ length: 6000 }, (_, i) => nodes[i % 3].spend('p', { apiCalls: 1 }, JAN)));
    await Promise.all(nodes.map((n) => n.close()));
    const later = startNode('n4');
    const rest = await outcomes(Array.from({ length: 1000 }, () => later.spend('p', { apiCalls: 1 }, JAN)));

    // Refused while other nodes held blocks they had not spent yet: at most a block and a half each.
    expect(first.passed).to.be.within(limit - 2 * 1.5 * blockFor(limit, 1), limit);
    expect(first.passed + rest.passed).to.equal(limit);
    await closeAll();
    expect(store.rows('p', MONTH).reduce((sum, r) => sum + r.used, 0)).to.equal(limit);
  });

  it('passes a limit with charges that cannot wait (MQTT publishes) by at most one block per node', async () => {
    const { nodes, closeAll } = aCluster(3);
    const limit = 1000;
    await nodes[0].setLimits('p', { messages: limit });
    // A CONNECT per node reads the counters and limits (spendNow charges unchecked until they are read).
    for (const node of nodes) await node.spend('p', { messages: 1 }, JAN);

    let admitted = 3;
    for (let round = 0; round < 800; round++) {
      for (const node of nodes) if (node.spendNow('p', { messages: 1 }, JAN) === undefined) admitted++;
      if (round % 10 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await new Promise((resolve) => setTimeout(resolve, 20));

    expect(admitted).to.be.at.least(limit - 3 * blockFor(limit, 1));
    expect(admitted).to.be.at.most(limit + 3 * blockFor(limit, 1));
    await closeAll();
  });

  it('gives a released reservation back', async () => {
    const { nodes, closeAll } = aCluster(1);
    await nodes[0].setLimits('p', { shadowOps: 10 });

    const held = await nodes[0].reserve('p', { shadowOps: 10 }, JAN);
    held.release();
    held.release();

    expect(await usedOf(nodes[0], 'shadowOps')).to.equal(0);
    await nodes[0].reserve('p', { shadowOps: 10 }, JAN);
    await closeAll();
  });

  it('obeys a limit lowered through another node at once when told: what was granted under the old one is given back', async () => {
    const { nodes, store, closeAll } = aCluster(2);
    await nodes[0].setLimits('p', { shadowOps: 160 });
    await nodes[1].spend('p', { shadowOps: 1 }, JAN);
    expect(store.rows('p', MONTH).find((r) => r.node === 'n2')!.granted).to.equal(10);

    await nodes[0].setLimits('p', { shadowOps: 2 });
    await new Promise((resolve) => setTimeout(resolve, 10));

    await nodes[1].spend('p', { shadowOps: 1 }, JAN);
    const err = await nodes[1].spend('p', { shadowOps: 1 }, JAN).catch((e: unknown) => e);
    expect((err as AppError).code).to.equal('QUOTA_EXCEEDED');
    expect((err as AppError).extra).to.include({ limit: 2, used: 2 });
    await closeAll();
  });

  it('obeys a lowered limit without the notice once its copy of the limits is older than their max age', async () => {
    let clock = JAN;
    const { nodes, feed, closeAll } = aCluster(2, { now: () => clock });
    await nodes[0].setLimits('p', { shadowOps: 160 });
    await nodes[1].spend('p', { shadowOps: 1 }, JAN);

    feed.cut(true);
    await nodes[0].setLimits('p', { shadowOps: 1 });
    await nodes[1].spend('p', { shadowOps: 1 }, JAN);
    clock += 5000;
    const err = await nodes[1].spend('p', { shadowOps: 1 }, JAN).catch((e: unknown) => e);

    expect((err as AppError).code).to.equal('QUOTA_EXCEEDED');
    await closeAll();
  });

  it('tries a grant again when other nodes change the counters meanwhile, and answers 503 when they always do', async () => {
    const { nodes, store, closeAll } = aCluster(1);
    await nodes[0].setLimits('p', { shadowOps: 10 });

    store.failGrants(3);
    await nodes[0].spend('p', { shadowOps: 1 }, JAN);
    store.failGrants(1000);
    const err = await nodes[0].spend('p', { shadowOps: 5 }, JAN).catch((e: unknown) => e);

    expect((err as AppError).code).to.equal('BACKEND_UNAVAILABLE');
    store.failGrants(0);
    await closeAll();
  });

  it('goes on charging from its block while the counters cannot be reached, then answers 503, not "quota spent"', async () => {
    const { nodes, store, closeAll } = aCluster(1);
    await nodes[0].setLimits('p', { messages: 1600 });
    await nodes[0].spend('p', { messages: 1 }, JAN);

    store.down(true);
    let admitted = 0;
    let refusal: AppError | undefined;
    while (!refusal && admitted < 1000) {
      refusal = nodes[0].spendNow('p', { messages: 1 }, JAN);
      if (!refusal) admitted++;
      await new Promise((resolve) => setImmediate(resolve));
    }

    // A block of 100 (1/16 of 1600), one used by the CONNECT; then at most one more block on credit.
    expect(admitted).to.be.within(99 + 1, 99 + blockFor(1600 - 100, 1));
    expect(refusal?.code).to.equal('BACKEND_UNAVAILABLE');
    store.down(false);
    await closeAll();
  });

  it('takes up its own counts and grants when it starts again after a crash with the same NODE_ID; another id finds that block held', async () => {
    const { nodes, startNode, closeAll } = aCluster(1);
    await nodes[0].setLimits('p', { shadowOps: 32 });
    await nodes[0].spend('p', { shadowOps: 1 }, JAN);
    await nodes[0].flush();
    // Crashed: neither saved again nor given back (its grant is 2: 1/16 of 32).

    const again = startNode('n1');
    const result = await outcomes(Array.from({ length: 40 }, () => again.spend('p', { shadowOps: 1 }, JAN)));
    expect(result.passed).to.equal(31);

    await closeAll();
  });

  it('counts what was charged before the counters were read, once', async () => {
    const { nodes, closeAll } = aCluster(2);
    nodes[0].record('p', { messages: 2 }, JAN);
    nodes[0].record('p', { messages: 3 }, JAN);
    nodes[1].spendNow('p', { messages: 4 }, JAN);
    await Promise.all(nodes.map((n) => n.flush()));
    await Promise.all(nodes.map((n) => n.flush()));

    expect(await usedOf(nodes[0], 'messages')).to.equal(9);
    expect(await usedOf(nodes[1], 'messages')).to.equal(9);
    await closeAll();
  });
});

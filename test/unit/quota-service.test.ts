import { expect } from 'chai';
import pino from 'pino';
import { ChangeFeed } from '../../src/cluster/port';
import { AppError } from '../../src/core/errors';
import { blockFor, GRANTS } from '../../src/quotas/grants';
import { QuotaLedger, QuotaLimitStore, QuotaService } from '../../src/quotas/port';
import { blocksOf, monthEnd, monthOf } from '../../src/quotas/quota';
import { createQuotaService } from '../../src/quotas/service';
import { memoryFeed, memoryLedger, memoryLimits } from '../helpers/memory-ledger';

const JAN = Date.UTC(2025, 0, 15);
const JAN_END = Date.UTC(2025, 0, 31, 23, 59, 59);
const MONTH = '2025-01';
const logger = pino({ level: 'silent' });

/** Nodes of one cluster, each a quota service over one ledger, one limit store and one notice feed. */
function aCluster(count: number, opts: { now?: () => number } = {}) {
  const store = memoryLedger();
  const limits = memoryLimits();
  const feed = memoryFeed();
  const started: QuotaService[] = [];
  const startNode = (node: string, changes: ChangeFeed = feed.node(), limitStore: QuotaLimitStore = limits) => {
    const service = createQuotaService({
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

/** A node alone (STORE=sqlite): its own ledger, whose grant is the whole limit. */
const ALONE = 'this-node';
function aNodeAlone(opts: { now?: () => number; ledger?: (ledger: QuotaLedger) => QuotaLedger } = {}) {
  const store = memoryLedger({ singleNode: ALONE });
  const quotas = createQuotaService({
    limits: memoryLimits(),
    ledger: opts.ledger ? opts.ledger(store.ledger) : store.ledger,
    // Whatever NODE_ID is (random when unset), the ledger's rows are this node's.
    node: `random-${Math.random()}`,
    changes: memoryFeed().node(),
    now: opts.now ?? (() => JAN),
    logger,
    limitsMaxAgeMs: 5000,
  });
  const saved = () => Object.fromEntries(store.rows('p', MONTH).map((r) => [r.quota, r.used]));
  return { quotas, store, saved };
}

const outcomes = async (calls: Promise<unknown>[]) => {
  const settled = await Promise.allSettled(calls);
  for (const s of settled) if (s.status === 'rejected' && !(s.reason instanceof AppError && s.reason.code === 'QUOTA_EXCEEDED')) throw s.reason;
  return { passed: settled.filter((s) => s.status === 'fulfilled').length, refused: settled.filter((s) => s.status === 'rejected').length };
};
const usedOf = async (node: QuotaService, quota: 'shadowOps' | 'messages' | 'apiCalls' | 'expressionRuns') => (await node.report('p', MONTH)).quotas[quota].used;
const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('quota counting (netpie reference §9)', () => {
  it('names months in UTC and knows when they end; rounds blocks up, at least one', () => {
    expect(monthOf(JAN_END)).to.equal('2025-01');
    expect(monthOf(JAN_END + 1000)).to.equal('2025-02');
    expect(new Date(monthEnd('2025-12')).toISOString()).to.equal('2026-01-01T00:00:00.000Z');
    expect([blocksOf(0, 1024), blocksOf(1024, 1024), blocksOf(1025, 1024), blocksOf(6 * 1024, 4096)]).to.deep.equal([1, 1, 2, 2]);
  });
});

describe('quotas of a node alone: a ledger whose grant is the whole limit', () => {
  it('lets only one of two concurrent reservations through when one more fits', async () => {
    const { quotas } = aNodeAlone({ now: () => JAN_END });
    await quotas.setLimits('p', { shadowOps: 1 });

    const results = await Promise.allSettled([quotas.reserve('p', { shadowOps: 1 }, JAN_END), quotas.reserve('p', { shadowOps: 1 }, JAN_END)]);

    expect(results.map((r) => r.status)).to.deep.equal(['fulfilled', 'rejected']);
    const refusal = (results[1] as PromiseRejectedResult).reason as AppError;
    expect(refusal.code).to.equal('QUOTA_EXCEEDED');
    expect(refusal.extra).to.include({ quota: 'shadowOps', limit: 1, used: 1, resetsAt: '2025-02-01T00:00:00.000Z', retryAfter: 1 });
    await quotas.close();
  });

  it('refuses a charge that does not fit, reporting what was used, not what was granted', async () => {
    const { quotas } = aNodeAlone();
    await quotas.setLimits('p', { apiCalls: 10 });
    await quotas.spend('p', { apiCalls: 8 }, JAN);

    const err = await quotas.spend('p', { apiCalls: 5 }, JAN).catch((e: unknown) => e);
    await quotas.spend('p', { apiCalls: 2 }, JAN);

    expect((err as AppError).extra).to.include({ quota: 'apiCalls', limit: 10, used: 8 });
    expect(await usedOf(quotas, 'apiCalls')).to.equal(10);
    await quotas.close();
  });

  it('gives a released reservation back', async () => {
    const { quotas } = aNodeAlone();
    await quotas.setLimits('p', { expressionRuns: 10 });

    const held = await quotas.reserve('p', { expressionRuns: 10 }, JAN);
    held.release();
    held.release();

    expect(await usedOf(quotas, 'expressionRuns')).to.equal(0);
    await quotas.reserve('p', { expressionRuns: 10 }, JAN);
    await quotas.close();
  });

  it('hands a shadow write its charge for the write\'s own transaction, and saves none of it itself', async () => {
    const { quotas, store, saved } = aNodeAlone();

    const held = await quotas.reserve('p', { shadowOps: 3, expressionRuns: 2 }, JAN);
    await quotas.flush();
    const beforeCommit = saved();
    // What the shadow store's transaction does with the charge (sqlite-shadow-store.ts).
    await store.ledger.saveUsed(ALONE, [
      { projectid: 'p', month: MONTH, quota: 'shadowOps', used: 3 },
      { projectid: 'p', month: MONTH, quota: 'expressionRuns', used: 2 },
    ]);
    held.committed();
    held.release();
    await quotas.spend('p', { shadowOps: 1 }, JAN);
    await quotas.close();

    expect(held.charge).to.deep.equal({ projectid: 'p', month: MONTH, amounts: { shadowOps: 3, expressionRuns: 2 } });
    expect(beforeCommit).to.deep.equal({});
    expect(saved()).to.deep.equal({ shadowOps: 4, expressionRuns: 2 });
  });

  it('counts charges recorded before the counters are read once, and saves each once', async () => {
    const { quotas, store, saved } = aNodeAlone();
    await store.ledger.saveUsed(ALONE, [{ projectid: 'p', month: MONTH, quota: 'messages', used: 5 }]);

    quotas.record('p', { messages: 2 }, JAN);
    const report = quotas.report('p', MONTH);
    quotas.record('p', { messages: 3 }, JAN);
    await quotas.flush();

    expect((await report).quotas.messages.used).to.be.oneOf([7, 10]);
    expect(await usedOf(quotas, 'messages')).to.equal(10);
    await quotas.close();
    expect(saved()).to.deep.equal({ messages: 10 });
  });

  it('checks without waiting once the counters are in memory, and charges without a check before', async () => {
    const { quotas } = aNodeAlone();
    await quotas.setLimits('p', { messages: 2 });

    expect(quotas.spendNow('p', { messages: 5 }, JAN)).to.equal(undefined);
    await tick();
    const refusal = quotas.spendNow('p', { messages: 1 }, JAN);

    expect(refusal?.code).to.equal('QUOTA_EXCEEDED');
    expect(await usedOf(quotas, 'messages')).to.equal(5);
    await quotas.close();
  });

  it('checks what cannot wait against the limit itself, never past it, nor short of it', async () => {
    const { quotas } = aNodeAlone();
    await quotas.setLimits('p', { messages: 100 });
    await quotas.spend('p', { messages: 1 }, JAN);

    let admitted = 1;
    for (let i = 0; i < 150; i++) if (quotas.spendNow('p', { messages: 1 }, JAN) === undefined) admitted++;

    expect(admitted).to.equal(100);
    await quotas.close();
  });

  it('starts each month from zero and reports past months from the ledger', async () => {
    let now = JAN_END;
    const { quotas } = aNodeAlone({ now: () => now });
    await quotas.setLimits('p', { apiCalls: 1 });
    await quotas.spend('p', { apiCalls: 1 }, now);

    now += 1000;
    await quotas.spend('p', { apiCalls: 1 }, now);
    await quotas.flush();

    expect((await quotas.report('p')).month).to.equal('2025-02');
    expect((await quotas.report('p', '2025-01')).quotas.apiCalls.used).to.equal(1);
    expect((await quotas.report('p', '2025-02')).quotas.apiCalls).to.deep.equal({ used: 1, limit: 1 });
    await quotas.close();
  });

  it('keeps unsaved charges when the ledger fails, and saves them later', async () => {
    let failing = true;
    const { quotas, saved } = aNodeAlone({
      ledger: (ledger) => ({ ...ledger, saveUsed: (node, c) => (failing ? Promise.reject(new Error('disk full')) : ledger.saveUsed(node, c)) }),
    });

    await quotas.spend('p', { triggerRuns: 1 }, JAN);
    await quotas.flush();
    failing = false;
    await quotas.close();

    expect(saved()).to.deep.equal({ triggerRuns: 1 });
  });
});

describe('quotas across the nodes of a cluster: blocks of one shared ledger', () => {
  it('takes blocks of at most 1/16 of what is left, at most 1000, and never less than asked', () => {
    expect([blockFor(100_000, 1), blockFor(1600, 1), blockFor(30, 1), blockFor(30, 5), blockFor(3, 5)]).to.deep.equal([GRANTS.maxBlock, 100, 1, 5, 0]);
  });

  it('lets exactly the limit of concurrent shadow writes through three nodes pass, and every node reports the same count', async () => {
    const { nodes, closeAll } = aCluster(3);
    await nodes[0].setLimits('p', { shadowOps: 30 });

    // Each write is committed, as the shadow write queue says once its store has it.
    const write = (i: number) => nodes[i % 3].reserve('p', { shadowOps: 1 }, JAN).then((held) => held.committed());
    const result = await outcomes(Array.from({ length: 90 }, (_, i) => write(i)));
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

  it('saves a shadow write\'s charge itself once the write is committed; one not committed yet is not saved', async () => {
    const { nodes, store, closeAll } = aCluster(1);

    const held = await nodes[0].reserve('p', { shadowOps: 2 }, JAN);
    await nodes[0].flush();
    const beforeCommit = store.rows('p', MONTH).map((r) => r.used);
    held.committed();
    await nodes[0].flush();

    expect(held.charge).to.equal(undefined);
    expect(beforeCommit).to.deep.equal([]);
    expect(store.rows('p', MONTH).map((r) => r.used)).to.deep.equal([2]);
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

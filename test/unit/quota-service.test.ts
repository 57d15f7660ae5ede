import { expect } from 'chai';
import pino from 'pino';
import { AppError } from '../../src/core/errors';
import { QuotaStore, UsageCharge } from '../../src/quotas/port';
import { Amounts, blocksOf, Limits, monthEnd, monthOf } from '../../src/quotas/quota';
import { createQuotaService } from '../../src/quotas/service';

/** A store in memory that counts its calls; `slow` delays reads, as a remote store would. */
function memoryStore(slow = 0) {
  const usage = new Map<string, Amounts>();
  const limits = new Map<string, Limits>();
  const saved: UsageCharge[] = [];
  const store: QuotaStore = {
    getLimits: async (projectid) => limits.get(projectid) ?? {},
    setLimits: async (projectid, l) => void limits.set(projectid, l),
    async readUsage(projectid, month) {
      const snapshot = { ...(usage.get(`${projectid}/${month}`) ?? {}) };
      if (slow) await new Promise((r) => setTimeout(r, slow));
      return snapshot;
    },
    async addUsage(charges) {
      for (const c of charges) {
        const key = `${c.projectid}/${c.month}`;
        const current = usage.get(key) ?? {};
        for (const [q, n] of Object.entries(c.amounts)) current[q as keyof Amounts] = (current[q as keyof Amounts] ?? 0) + (n ?? 0);
        usage.set(key, current);
        saved.push(c);
      }
    },
  };
  return { store, usage, saved };
}

const JAN = Date.UTC(2025, 0, 31, 23, 59, 59);
const logger = pino({ level: 'silent' });

describe('quota counting (netpie reference §9)', () => {
  it('names months in UTC and knows when they end; rounds blocks up, at least one', () => {
    expect(monthOf(JAN)).to.equal('2025-01');
    expect(monthOf(JAN + 1000)).to.equal('2025-02');
    expect(new Date(monthEnd('2025-12')).toISOString()).to.equal('2026-01-01T00:00:00.000Z');
    expect([blocksOf(0, 1024), blocksOf(1024, 1024), blocksOf(1025, 1024), blocksOf(6 * 1024, 4096)]).to.deep.equal([1, 1, 2, 2]);
  });

  it('lets only one of two concurrent reservations through when one more fits', async () => {
    const { store } = memoryStore(5);
    const quotas = createQuotaService({ store, now: () => JAN, logger });
    await quotas.setLimits('p', { shadowOps: 1 });

    const results = await Promise.allSettled([quotas.reserve('p', { shadowOps: 1 }, JAN), quotas.reserve('p', { shadowOps: 1 }, JAN)]);

    expect(results.map((r) => r.status)).to.deep.equal(['fulfilled', 'rejected']);
    const refusal = (results[1] as PromiseRejectedResult).reason as AppError;
    expect(refusal.code).to.equal('QUOTA_EXCEEDED');
    expect(refusal.extra).to.include({ quota: 'shadowOps', limit: 1, used: 1, resetsAt: '2025-02-01T00:00:00.000Z', retryAfter: 1 });
    await quotas.close();
  });

  it('gives a released reservation back', async () => {
    const quotas = createQuotaService({ store: memoryStore().store, now: () => JAN, logger });
    await quotas.setLimits('p', { expressionRuns: 10 });

    const held = await quotas.reserve('p', { expressionRuns: 10 }, JAN);
    held.release();
    held.release();

    expect((await quotas.report('p', '2025-01')).quotas.expressionRuns.used).to.equal(0);
    await quotas.reserve('p', { expressionRuns: 10 }, JAN);
    await quotas.close();
  });

  it('counts charges recorded before the counters are read once, and saves each once', async () => {
    const { store, usage } = memoryStore(20);
    usage.set('p/2025-01', { messages: 5 });
    const quotas = createQuotaService({ store, now: () => JAN, logger });

    quotas.record('p', { messages: 2 }, JAN);
    const report = quotas.report('p', '2025-01');
    quotas.record('p', { messages: 3 }, JAN);
    await quotas.flush();

    expect((await report).quotas.messages.used).to.be.oneOf([7, 10]);
    expect((await quotas.report('p', '2025-01')).quotas.messages.used).to.equal(10);
    await quotas.close();
    expect(usage.get('p/2025-01')).to.deep.equal({ messages: 10 });
  });

  it('checks without waiting once the counters are in memory, and charges without a check before', async () => {
    const { store } = memoryStore();
    const quotas = createQuotaService({ store, now: () => JAN, logger });
    await quotas.setLimits('p', { messages: 2 });

    expect(quotas.spendNow('p', { messages: 5 }, JAN)).to.equal(undefined);
    await new Promise((r) => setTimeout(r, 10));
    const refusal = quotas.spendNow('p', { messages: 1 }, JAN);

    expect(refusal?.code).to.equal('QUOTA_EXCEEDED');
    expect((await quotas.report('p', '2025-01')).quotas.messages.used).to.equal(5);
    await quotas.close();
  });

  it('starts each month from zero and reports past months from the store', async () => {
    const { store } = memoryStore();
    let now = JAN;
    const quotas = createQuotaService({ store, now: () => now, logger });
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

  it('keeps unsaved charges when the store fails, and saves them later', async () => {
    const { store, saved } = memoryStore();
    let failing = true;
    const flaky: QuotaStore = { ...store, addUsage: async (c) => (failing ? Promise.reject(new Error('disk full')) : store.addUsage(c)) };
    const quotas = createQuotaService({ store: flaky, now: () => JAN, logger });

    await quotas.spend('p', { triggerRuns: 1 }, JAN);
    await quotas.flush();
    failing = false;
    await quotas.close();

    expect(saved).to.deep.equal([{ projectid: 'p', month: '2025-01', amounts: { triggerRuns: 1 } }]);
  });
});

import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { QuotaLedger } from '../../../src/quotas/port';

export interface OpenLedger {
  ledger: QuotaLedger;
  dispose(): Promise<void>;
}

const MONTH = '2025-01';
const aProject = () => `p-${randomUUID().slice(0, 8)}`;

/**
 * QuotaLedger (src/quotas/port.ts), the quota counters nodes share: only the Cassandra store has one (SQLite serves
 * one node, whose counters stay in its database), but the suite states what any adapter of it must do.
 */
export function quotaLedgerContract(adapter: string, open: () => Promise<OpenLedger>): void {
  describe(`QuotaLedger contract: ${adapter}`, () => {
    let opened: OpenLedger;
    let ledger: QuotaLedger;
    before(async () => {
      opened = await open();
      ledger = opened.ledger;
    });
    after(async () => {
      await opened?.dispose();
    });

    it('reads an untouched month as version 0 without entries', async () => {
      expect(await ledger.read(aProject(), MONTH)).to.deep.equal({ version: 0, entries: [] });
    });

    it('saves a node\'s counters as absolute values: saving again changes nothing, and grants stay as they were', async () => {
      const projectid = aProject();
      await ledger.setGranted(projectid, MONTH, 'shadowOps', 'n1', 10, 0);

      await ledger.saveUsed('n1', [{ projectid, month: MONTH, quota: 'shadowOps', used: 7 }, { projectid, month: MONTH, quota: 'messages', used: 3 }]);
      await ledger.saveUsed('n1', [{ projectid, month: MONTH, quota: 'shadowOps', used: 7 }]);
      await ledger.saveUsed('n2', [{ projectid, month: MONTH, quota: 'shadowOps', used: 1 }]);

      const { version, entries } = await ledger.read(projectid, MONTH);
      expect(version).to.equal(1);
      expect(entries).to.have.deep.members([
        { quota: 'shadowOps', node: 'n1', used: 7, granted: 10 },
        { quota: 'messages', node: 'n1', used: 3, granted: 0 },
        { quota: 'shadowOps', node: 'n2', used: 1, granted: 0 },
      ]);
    });

    it('grants only against the version read: a stale version is refused and changes nothing', async () => {
      const projectid = aProject();
      expect(await ledger.setGranted(projectid, MONTH, 'apiCalls', 'n1', 5, 0)).to.equal(true);

      expect(await ledger.setGranted(projectid, MONTH, 'apiCalls', 'n2', 5, 0)).to.equal(false);
      expect(await ledger.setGranted(projectid, MONTH, 'messages', 'n2', 5, 1)).to.equal(true);
      expect(await ledger.setGranted(projectid, MONTH, 'apiCalls', 'n1', 2, 1)).to.equal(false);

      const { version, entries } = await ledger.read(projectid, MONTH);
      expect(version).to.equal(2);
      expect(entries).to.have.deep.members([
        { quota: 'apiCalls', node: 'n1', used: 0, granted: 5 },
        { quota: 'messages', node: 'n2', used: 0, granted: 5 },
      ]);
    });

    it('lets exactly one of ten nodes granting themselves at once from one reading succeed', async () => {
      const projectid = aProject();
      const { version } = await ledger.read(projectid, MONTH);

      const outcomes = await Promise.all(
        Array.from({ length: 10 }, (_, i) => ledger.setGranted(projectid, MONTH, 'triggerRuns', `n${i}`, 1, version)),
      );

      expect(outcomes.filter(Boolean)).to.have.length(1);
      const { entries } = await ledger.read(projectid, MONTH);
      expect(entries.filter((e) => e.granted > 0)).to.have.length(1);
    });

    it('keeps months and projects apart', async () => {
      const projectid = aProject();
      await ledger.saveUsed('n1', [{ projectid, month: MONTH, quota: 'messages', used: 4 }]);

      expect(await ledger.read(projectid, '2025-02')).to.deep.equal({ version: 0, entries: [] });
      expect(await ledger.read(aProject(), MONTH)).to.deep.equal({ version: 0, entries: [] });
    });
  });
}

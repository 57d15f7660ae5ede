import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { OpenStores, OpenStoresFn } from './store-under-test';

/** QuotaLimitStore (src/quotas/port.ts), which every store keeps: what each adapter must do. */
export function quotaLimitsContract(adapter: string, open: OpenStoresFn): void {
  describe(`quota limits contract: ${adapter}`, () => {
    let stores: OpenStores;
    before(async () => {
      stores = await open();
    });
    after(async () => {
      await stores?.dispose();
    });
    const aProject = () => `p-${randomUUID().slice(0, 8)}`;

    it('answers {} (all unlimited) for a project without limits', async () => {
      expect(await stores.quotaLimits.getLimits(aProject())).to.deep.equal({});
    });

    it('replaces the limits of a project as a whole, 0 included, and keeps them across a restart', async () => {
      const projectid = aProject();
      await stores.quotaLimits.setLimits(projectid, { shadowOps: 10, messages: 5 });
      await stores.quotaLimits.setLimits(projectid, { apiCalls: 0, triggerRuns: 2 ** 53 - 1 });

      await stores.reopen();

      expect(await stores.quotaLimits.getLimits(projectid)).to.deep.equal({ apiCalls: 0, triggerRuns: 2 ** 53 - 1 });
    });
  });
}

import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { RollupStore } from '../../../src/timeseries/rollups/port';
import { RollupDeclaration } from '../../../src/timeseries/rollups/tiers';

export interface OpenRollupStore {
  /** The store over the data as it is now (a new one after `reopen`). */
  store(): RollupStore;
  /** Closes and opens the same data again, as a restart of the service does. */
  reopen(): Promise<void>;
  dispose(): Promise<void>;
}

const HOUR = 3_600_000;
const aDeclaration = (more: Partial<RollupDeclaration> = {}): RollupDeclaration => ({
  tiers: [{ periodMs: 60_000, retentionMs: 30 * 86_400_000 }, { periodMs: HOUR, retentionMs: undefined }],
  declaredAt: 1_700_000_000_000,
  builtAt: undefined,
  ...more,
});

/** RollupStore (src/timeseries/rollups/port.ts): what every adapter must do, whatever it stores in. */
export function rollupStoreContract(adapter: string, open: () => Promise<OpenRollupStore>): void {
  describe(`RollupStore contract: ${adapter}`, () => {
    let opened: OpenRollupStore;
    before(async () => {
      opened = await open();
    });
    after(async () => {
      await opened?.dispose();
    });
    const aProject = () => `p-${randomUUID().slice(0, 8)}`;

    it('answers undefined for a project without roll-ups', async () => {
      expect(await opened.store().getRollups(aProject())).to.equal(undefined);
    });

    it('keeps a declaration across a restart: tiers, unlimited retention, not built yet', async () => {
      const projectid = aProject();
      await opened.store().putRollups(projectid, aDeclaration());

      await opened.reopen();

      expect(await opened.store().getRollups(projectid)).to.deep.equal(aDeclaration());
      expect(await opened.store().listUnbuilt()).to.include(projectid);
    });

    it('marks a declaration built only while it is the one declared at that time', async () => {
      const projectid = aProject();
      await opened.store().putRollups(projectid, aDeclaration());
      await opened.store().putRollups(projectid, aDeclaration({ declaredAt: 1_700_000_000_500, tiers: [{ periodMs: HOUR, retentionMs: 86_400_000 }] }));

      expect(await opened.store().markBuilt(projectid, 1_700_000_000_000, 1_700_000_001_000)).to.equal(false);
      expect((await opened.store().getRollups(projectid))?.builtAt).to.equal(undefined);
      expect(await opened.store().markBuilt(projectid, 1_700_000_000_500, 1_700_000_001_000)).to.equal(true);

      expect(await opened.store().getRollups(projectid)).to.deep.equal({
        tiers: [{ periodMs: HOUR, retentionMs: 86_400_000 }], declaredAt: 1_700_000_000_500, builtAt: 1_700_000_001_000,
      });
      expect(await opened.store().listUnbuilt()).to.not.include(projectid);
    });

    it('deletes a declaration and says whether there was one', async () => {
      const projectid = aProject();
      await opened.store().putRollups(projectid, aDeclaration());

      expect(await opened.store().deleteRollups(projectid)).to.equal(true);
      expect(await opened.store().deleteRollups(projectid)).to.equal(false);
      expect(await opened.store().getRollups(projectid)).to.equal(undefined);
      expect(await opened.store().listUnbuilt()).to.not.include(projectid);
    });
  });
}

import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { ProjectRetentionStore } from '../../../src/timeseries/project-retention';

export interface OpenProjectRetentionStore {
  store: ProjectRetentionStore;
  /** Another adapter on the same data, as another node, or the service after a restart, opens it. */
  another(): ProjectRetentionStore;
  dispose(): Promise<void>;
}

const aProject = () => `p-${randomUUID().slice(0, 8)}`;
const DAY = 86_400_000;

/** ProjectRetentionStore (src/timeseries/project-retention.ts): projects' own retention, shared by every node. */
export function projectRetentionContract(adapter: string, open: () => Promise<OpenProjectRetentionStore>): void {
  describe(`ProjectRetentionStore contract: ${adapter}`, () => {
    let opened: OpenProjectRetentionStore;
    before(async () => {
      opened = await open();
    });
    after(async () => {
      await opened?.dispose();
    });

    it('answers undefined for a project without a retention of its own', async () => {
      expect(await opened.store.getRetention(aProject())).to.equal(undefined);
    });

    it('keeps each project its own retention, replaced by the next put, seen by another adapter on the same data', async () => {
      const project = aProject();
      const other = aProject();
      await opened.store.putRetention(project, 30 * DAY);
      await opened.store.putRetention(other, 1500);

      await opened.store.putRetention(project, 20 * 365 * DAY);

      expect(await opened.another().getRetention(project)).to.equal(20 * 365 * DAY);
      expect(await opened.another().getRetention(other)).to.equal(1500);
    });

    it('deletes a retention once: true, then false, leaving other projects alone', async () => {
      const project = aProject();
      const other = aProject();
      await opened.store.putRetention(project, DAY);
      await opened.store.putRetention(other, DAY);

      expect(await opened.store.deleteRetention(project)).to.equal(true);
      expect(await opened.store.deleteRetention(project)).to.equal(false);

      expect(await opened.store.getRetention(project)).to.equal(undefined);
      expect(await opened.store.getRetention(other)).to.equal(DAY);
    });
  });
}

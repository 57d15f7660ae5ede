import { expect } from 'chai';
import { Device } from '../../../src/devices/device';
import { RevisionToKeep } from '../../../src/shadows/history';
import { Shadow } from '../../../src/shadows/shadow';
import { aDeviceRecord, OpenStores, OpenStoresFn } from './store-under-test';

const T0 = Date.UTC(2024, 0, 1);

/** ShadowHistory (src/shadows/history.ts) and the revisions a ShadowStore keeps with a commit (ShadowCommit.revisions). */
export function shadowHistoryContract(adapter: string, open: OpenStoresFn): void {
  describe(`ShadowHistory contract: ${adapter}`, function () {
    // The expiry test waits for a TTL of Cassandra's, counted in whole seconds.
    this.timeout(20_000);
    let stores: OpenStores;
    before(async () => {
      stores = await open();
    });
    after(async () => {
      await stores?.dispose();
    });

    async function aStoredDevice(fields: Partial<Device> = {}): Promise<Device> {
      const device = aDeviceRecord(fields);
      await stores.devices.insertDevice(device);
      return device;
    }

    /** Rev n written at T0 + 1000 n (server time), data time T0 + 10 n. */
    const revision = (device: Device, data: Shadow['data'], rev: number): Shadow => ({
      deviceid: device.deviceid, data, rev, modified: T0 + 1000 * rev, timestamp: T0 + 10 * rev,
    });
    const kept = (...shadows: Shadow[]): RevisionToKeep[] => shadows.map((shadow) => ({ shadow }));

    /** Commits revisions one after the other, each as a write of its own. */
    async function writeAll(revisions: Shadow[], expiresAt?: number): Promise<void> {
      for (const shadow of revisions) {
        const committed = await stores.shadows.commitShadowWrite({
          shadow, expectedRev: shadow.rev - 1, points: [], revisions: [{ shadow, ...(expiresAt ? { expiresAt } : {}) }],
        });
        expect(committed).to.equal(true);
      }
    }

    const revsOf = (shadows: Shadow[]) => shadows.map((s) => s.rev);
    const all = { from: 0, to: Number.MAX_SAFE_INTEGER, limit: 100 };

    it('keeps every revision of one commit (a fold of writes) with its whole document, and finds the one in force at a time', async () => {
      const device = await aStoredDevice();
      const r1 = revision(device, { s: 'text', list: [1, 'two', null], nested: { a: { b: true } } }, 1);
      const r2 = revision(device, { s: 'text', list: [3], nested: { a: {} } }, 2);
      const r3 = revision(device, { s: null, list: [], n: 1.5 }, 3);

      const committed = await stores.shadows.commitShadowWrite({ shadow: r3, expectedRev: 0, points: [], revisions: kept(r1, r2, r3) });

      expect(committed).to.equal(true);
      const now = Date.now();
      expect(await stores.shadowHistory.revisionAt(device.deviceid, r1.modified, now)).to.deep.equal(r1);
      expect(await stores.shadowHistory.revisionAt(device.deviceid, r2.modified + 999, now)).to.deep.equal(r2);
      expect(await stores.shadowHistory.revisionAt(device.deviceid, r3.modified + 5, now)).to.deep.equal(r3);
      expect(await stores.shadowHistory.revisionAt(device.deviceid, r1.modified - 1, now)).to.equal(undefined);
      expect(await stores.shadowHistory.oldestRevision(device.deviceid, now)).to.deep.equal(r1);
    });

    it('keeps no revision of a commit whose compare-and-set fails', async () => {
      const device = await aStoredDevice();
      await writeAll([revision(device, { a: 1 }, 1)]);
      const losing = revision(device, { a: 'lost' }, 2);

      const committed = await stores.shadows.commitShadowWrite({ shadow: losing, expectedRev: 0, points: [], revisions: kept(losing) });

      expect(committed).to.equal(false);
      expect(revsOf(await stores.shadowHistory.listRevisions(device.deviceid, all, Date.now()))).to.deep.equal([1]);
    });

    it('lists revisions newest first, within from..to (inclusive), in pages that follow each other', async () => {
      const device = await aStoredDevice();
      await writeAll([1, 2, 3, 4, 5, 6].map((rev) => revision(device, { rev }, rev)));
      const now = Date.now();

      const first = await stores.shadowHistory.listRevisions(device.deviceid, { ...all, limit: 4 }, now);
      const last = first[first.length - 1];
      const second = await stores.shadowHistory.listRevisions(device.deviceid, { ...all, limit: 4, before: last }, now);
      const window = await stores.shadowHistory.listRevisions(device.deviceid, { from: T0 + 2000, to: T0 + 4000, limit: 100 }, now);

      expect(revsOf(first)).to.deep.equal([6, 5, 4, 3]);
      expect(revsOf(second)).to.deep.equal([2, 1]);
      expect(revsOf(window)).to.deep.equal([4, 3, 2]);
      expect(first[0].data).to.deep.equal({ rev: 6 });
    });

    it('never answers a revision past its expiry', async () => {
      const device = await aStoredDevice();
      const shadow: Shadow = { deviceid: device.deviceid, data: { a: 1 }, rev: 1, modified: Date.now(), timestamp: Date.now() };
      const expiresAt = Date.now() + 1000;
      await writeAll([shadow], expiresAt);
      expect(await stores.shadowHistory.oldestRevision(device.deviceid, Date.now())).to.deep.equal(shadow);

      // Cassandra's TTL counts whole seconds from the write: 1 s, rounded up, plus room.
      await new Promise((resolve) => setTimeout(resolve, 2500));

      const now = Date.now();
      expect(await stores.shadowHistory.oldestRevision(device.deviceid, now)).to.equal(undefined);
      expect(await stores.shadowHistory.revisionAt(device.deviceid, now, now)).to.equal(undefined);
      expect(await stores.shadowHistory.listRevisions(device.deviceid, all, now)).to.deep.equal([]);
    });

    it('forgets the history of a deleted device: its id registered again starts with none', async () => {
      const device = await aStoredDevice();
      await writeAll([revision(device, { a: 1 }, 1), revision(device, { a: 2 }, 2)]);

      await stores.devices.deleteDevice(device.deviceid);
      await stores.devices.insertDevice({ ...device, alias: `${device.alias}-again` });

      expect(await stores.shadowHistory.listRevisions(device.deviceid, all, Date.now())).to.deep.equal([]);
    });
  });
}

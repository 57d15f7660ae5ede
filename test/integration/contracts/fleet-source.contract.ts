import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { FleetSource } from '../../../src/fleet/port';
import { aDeviceRecord, Stores } from './store-under-test';

export interface OpenFleetSource {
  /** The stores the source reads, to write devices and shadows through. */
  stores: Stores;
  source: FleetSource;
  dispose(): Promise<void>;
}

/** FleetSource (src/fleet/port.ts): what the fleet index reads of a store, whichever it is. */
export function fleetSourceContract(adapter: string, open: () => Promise<OpenFleetSource>): void {
  describe(`FleetSource contract: ${adapter}`, () => {
    let opened: OpenFleetSource;
    before(async () => {
      opened = await open();
    });
    after(async () => {
      await opened?.dispose();
    });

    async function aDeviceWith(projectid: string, data?: Record<string, number | string>, groupid = 'g1') {
      const device = aDeviceRecord({ projectid, groupid });
      await opened.stores.devices.insertDevice(device);
      if (data) {
        const shadow = { deviceid: device.deviceid, data, rev: 1, modified: 1_700_000_000_000, timestamp: 1_700_000_000_000 };
        expect(await opened.stores.shadows.commitShadowWrite({ shadow, expectedRev: 0, points: [] })).to.equal(true);
      }
      return device;
    }

    it('reads every device of the project with its place and shadow, and none of another project', async () => {
      const projectid = `p-${randomUUID().slice(0, 8)}`;
      const written = await aDeviceWith(projectid, { battery: 7, fw: '2.0' }, 'g2');
      const never = await aDeviceWith(projectid);
      await aDeviceWith(`other-${projectid}`, { battery: 1 });

      const entries = await opened.source.loadProject(projectid);

      expect(entries.map((e) => e.deviceid).sort()).to.deep.equal([written.deviceid, never.deviceid].sort());
      expect(entries.find((e) => e.deviceid === written.deviceid)).to.deep.equal({
        deviceid: written.deviceid, projectid, groupid: 'g2', alias: written.alias, data: { battery: 7, fw: '2.0' }, rev: 1, modified: 1_700_000_000_000,
      });
      expect(entries.find((e) => e.deviceid === never.deviceid)).to.deep.include({ data: {}, rev: 0, modified: 0 });
    });

    it('reads one device, and nothing once it is deleted', async () => {
      const device = await aDeviceWith(`p-${randomUUID().slice(0, 8)}`, { battery: 3 });

      expect(await opened.source.loadDevice(device.deviceid)).to.deep.include({ deviceid: device.deviceid, data: { battery: 3 }, rev: 1 });
      await opened.stores.devices.deleteDevice(device.deviceid);

      expect(await opened.source.loadDevice(device.deviceid)).to.equal(undefined);
    });

    it('answers an empty project with no device', async () => {
      expect(await opened.source.loadProject(`none-${randomUUID()}`)).to.deep.equal([]);
    });
  });
}

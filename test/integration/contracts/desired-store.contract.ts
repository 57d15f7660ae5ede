import { expect } from 'chai';
import { Device } from '../../../src/devices/device';
import { DesiredState } from '../../../src/desired/desired';
import { aDeviceRecord, OpenStores, OpenStoresFn } from './store-under-test';

/** DesiredStore (src/desired/port.ts): what every adapter must do, whatever it stores in. */
export function desiredStoreContract(adapter: string, open: OpenStoresFn): void {
  describe(`DesiredStore contract: ${adapter}`, () => {
    let stores: OpenStores;
    before(async () => {
      stores = await open();
    });
    after(async () => {
      await stores?.dispose();
    });

    async function aStoredDevice(): Promise<Device> {
      const device = aDeviceRecord();
      await stores.devices.insertDevice(device);
      return device;
    }
    const aState = (deviceid: string, rev: number, desired: DesiredState['desired']): DesiredState => ({ deviceid, desired, rev, modified: 1_700_000_000_000 + rev });

    it('answers undefined for a device whose desired document was never written', async () => {
      const device = await aStoredDevice();

      expect(await stores.desired.readDesired(device.deviceid)).to.equal(undefined);
    });

    it('stores the first document at expected rev 0 and reads it back as written, nested members and all', async () => {
      const device = await aStoredDevice();
      const state = aState(device.deviceid, 1, { led: 'on', config: { rate: [1, 2], unit: null } });

      expect(await stores.desired.commitDesired(state, 0)).to.equal(true);

      expect(await stores.desired.readDesired(device.deviceid)).to.deep.equal(state);
    });

    it('refuses a write that expects another rev, leaving the stored document as it was', async () => {
      const device = await aStoredDevice();
      const first = aState(device.deviceid, 1, { led: 'on' });
      await stores.desired.commitDesired(first, 0);

      expect(await stores.desired.commitDesired(aState(device.deviceid, 1, { led: 'off' }), 0)).to.equal(false);
      expect(await stores.desired.commitDesired(aState(device.deviceid, 3, { led: 'off' }), 2)).to.equal(false);
      expect(await stores.desired.readDesired(device.deviceid)).to.deep.equal(first);

      const second = aState(device.deviceid, 2, { led: 'off' });
      expect(await stores.desired.commitDesired(second, 1)).to.equal(true);
      expect(await stores.desired.readDesired(device.deviceid)).to.deep.equal(second);
    });

    it('lets exactly one of two writers expecting the same rev win', async () => {
      const device = await aStoredDevice();
      await stores.desired.commitDesired(aState(device.deviceid, 1, { n: 0 }), 0);

      const outcomes = await Promise.all([
        stores.desired.commitDesired(aState(device.deviceid, 2, { n: 1 }), 1),
        stores.desired.commitDesired(aState(device.deviceid, 2, { n: 2 }), 1),
      ]);

      expect(outcomes.filter(Boolean)).to.have.length(1);
      const winner = outcomes[0] ? 1 : 2;
      expect((await stores.desired.readDesired(device.deviceid))?.desired).to.deep.equal({ n: winner });
    });

    it('deletes the desired document with its device, so an id registered again starts without one', async () => {
      const device = await aStoredDevice();
      await stores.desired.commitDesired(aState(device.deviceid, 1, { led: 'on' }), 0);

      expect(await stores.devices.deleteDevice(device.deviceid)).to.equal(true);

      expect(await stores.desired.readDesired(device.deviceid)).to.equal(undefined);
      await stores.devices.insertDevice(device);
      expect(await stores.desired.readDesired(device.deviceid)).to.equal(undefined);
      expect(await stores.desired.commitDesired(aState(device.deviceid, 1, { led: 'off' }), 0)).to.equal(true);
    });

    it('keeps documents across a reopen', async () => {
      const device = await aStoredDevice();
      const state = aState(device.deviceid, 1, { target: 21.5 });
      await stores.desired.commitDesired(state, 0);

      await stores.reopen();

      expect(await stores.desired.readDesired(device.deviceid)).to.deep.equal(state);
    });
  });
}

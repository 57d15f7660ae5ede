import { expect } from 'chai';
import { Device } from '../../../src/devices/device';
import { Shadow } from '../../../src/shadows/shadow';
import { Point } from '../../../src/timeseries/point';
import { aDeviceRecord, aPointOf, codeOf, drainOutbox, OpenStores, OpenStoresFn, rejectionOf } from './store-under-test';

const T0 = Date.UTC(2024, 0, 1);

/** ShadowStore and PointOutbox (src/shadows/port.ts): what every adapter must do, whatever it stores in. */
export function shadowStoreContract(adapter: string, open: OpenStoresFn): void {
  describe(`ShadowStore and PointOutbox contract: ${adapter}`, () => {
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

    const aShadow = (device: Device, data: Shadow['data'], rev: number): Shadow => ({
      deviceid: device.deviceid,
      data,
      rev,
      modified: T0 + rev,
      timestamp: T0 + 10 * rev,
    });

    /** What the shadow service does: read, change, compare-and-set, again when another writer won. */
    async function increment(device: Device, field: string): Promise<number> {
      for (let attempt = 1; ; attempt++) {
        const current = await stores.shadows.readShadow(device.deviceid);
        const rev = current?.rev ?? 0;
        const count = typeof current?.data[field] === 'number' ? current.data[field] : 0;
        const next = aShadow(device, { ...current?.data, [field]: count + 1 }, rev + 1);
        const points = [aPointOf(device.deviceid, field, T0 + rev + 1, count + 1)];
        if (await stores.shadows.commitShadowWrite({ shadow: next, expectedRev: rev, points })) return attempt;
      }
    }

    describe('readShadow and commitShadowWrite', () => {
      it('answers undefined for a device whose shadow was never written', async () => {
        const device = await aStoredDevice();

        expect(await stores.shadows.readShadow(device.deviceid)).to.equal(undefined);
      });

      it('stores the first write with expectedRev 0 and reads it back whole', async () => {
        const device = await aStoredDevice();
        const shadow = aShadow(device, { temp: 21.5, nested: { on: true, list: [1, 'two', null] }, text: 'ü' }, 1);

        expect(await stores.shadows.commitShadowWrite({ shadow, expectedRev: 0, points: [] })).to.equal(true);

        expect(await stores.shadows.readShadow(device.deviceid)).to.deep.equal(shadow);
      });

      it('refuses a write whose expectedRev is not the stored rev, storing nothing', async () => {
        const device = await aStoredDevice();
        const first = aShadow(device, { a: 1 }, 1);
        await stores.shadows.commitShadowWrite({ shadow: first, expectedRev: 0, points: [] });
        await drainOutbox(stores.shadows);

        const stale = await stores.shadows.commitShadowWrite({
          shadow: aShadow(device, { a: 2 }, 1),
          expectedRev: 0,
          points: [aPointOf(device.deviceid, 'a', T0, 2)],
        });
        const ahead = await stores.shadows.commitShadowWrite({ shadow: aShadow(device, { a: 3 }, 3), expectedRev: 2, points: [] });

        expect([stale, ahead]).to.deep.equal([false, false]);
        expect(await stores.shadows.readShadow(device.deviceid)).to.deep.equal(first);
        expect(await drainOutbox(stores.shadows), 'points of a lost compare-and-set').to.deep.equal([]);
      });

      it('keeps every increment of 20 concurrent writers of one shadow: the field ends at 20, rev at 20', async () => {
        const device = await aStoredDevice();

        const attempts = await Promise.all(Array.from({ length: 20 }, () => increment(device, 'count')));

        const shadow = await stores.shadows.readShadow(device.deviceid);
        expect(shadow?.data.count).to.equal(20);
        expect(shadow?.rev).to.equal(20);
        expect(Math.max(...attempts), 'some writer had to try again').to.be.greaterThan(1);
        const points = (await drainOutbox(stores.shadows)).filter((p) => p.metric === device.deviceid);
        expect(points.map((p) => p.value).sort((a, b) => a - b), 'one point per applied write').to.deep.equal(
          Array.from({ length: 20 }, (_, i) => i + 1),
        );
      });

      it('throws DEVICE_NOT_FOUND for a write to a deleted device, and its shadow is gone', async () => {
        const device = await aStoredDevice();
        await stores.shadows.commitShadowWrite({ shadow: aShadow(device, { a: 1 }, 1), expectedRev: 0, points: [] });
        await drainOutbox(stores.shadows);

        expect(await stores.devices.deleteDevice(device.deviceid)).to.equal(true);
        const err = await rejectionOf(
          stores.shadows.commitShadowWrite({ shadow: aShadow(device, { a: 2 }, 2), expectedRev: 1, points: [aPointOf(device.deviceid, 'a', T0, 2)] }),
        );

        expect(codeOf(err)).to.equal('DEVICE_NOT_FOUND');
        expect(await stores.shadows.readShadow(device.deviceid)).to.equal(undefined);
        expect(await drainOutbox(stores.shadows)).to.deep.equal([]);
      });

      it('throws DEVICE_NOT_FOUND for a first write to a deleted device', async () => {
        const device = await aStoredDevice();
        await stores.devices.deleteDevice(device.deviceid);

        const err = await rejectionOf(stores.shadows.commitShadowWrite({ shadow: aShadow(device, { a: 1 }, 1), expectedRev: 0, points: [] }));

        expect(codeOf(err)).to.equal('DEVICE_NOT_FOUND');
      });
    });

    describe('PointOutbox', () => {
      beforeEach(() => drainOutbox(stores.shadows));

      it('queues the points of each committed write and gives them oldest first, across devices', async () => {
        const [a, b] = [await aStoredDevice(), await aStoredDevice()];
        const writes: [Device, Point[]][] = [
          [a, [aPointOf(a.deviceid, 'x', T0, 1), aPointOf(a.deviceid, 'y', T0, 2)]],
          [b, [aPointOf(b.deviceid, 'x', T0, 3)]],
          [a, [aPointOf(a.deviceid, 'x', T0 + 1, 4)]],
        ];
        const revs = new Map<string, number>();
        for (const [device, points] of writes) {
          const rev = revs.get(device.deviceid) ?? 0;
          expect(await stores.shadows.commitShadowWrite({ shadow: aShadow(device, { x: rev }, rev + 1), expectedRev: rev, points })).to.equal(true);
          revs.set(device.deviceid, rev + 1);
        }

        const { points, upTo } = await stores.shadows.peek(100);
        await stores.shadows.remove(upTo);

        expect(points.map((p) => p.value)).to.deep.equal([1, 2, 3, 4]);
        expect(points[0]).to.deep.equal(writes[0][1][0]);
        expect((await stores.shadows.peek(100)).points).to.deep.equal([]);
      });

      it('peeks whole writes up to about max (at least one), and remove takes only what was peeked', async () => {
        const device = await aStoredDevice();
        for (let rev = 0; rev < 3; rev++) {
          const points = [aPointOf(device.deviceid, 'x', T0 + rev, rev), aPointOf(device.deviceid, 'y', T0 + rev, rev)];
          await stores.shadows.commitShadowWrite({ shadow: aShadow(device, { x: rev }, rev + 1), expectedRev: rev, points });
        }

        const one = await stores.shadows.peek(1);
        const again = await stores.shadows.peek(3);
        await stores.shadows.remove(again.upTo);
        const rest = await stores.shadows.peek(100);

        expect(one.points.map((p) => p.timestamp)).to.deep.equal([T0, T0]);
        expect(again.points.map((p) => p.timestamp), 'the same oldest write, then no part of the next').to.deep.equal([T0, T0]);
        expect(rest.points.map((p) => p.timestamp)).to.deep.equal([T0 + 1, T0 + 1, T0 + 2, T0 + 2]);
      });

      it('queues the points of a write that leaves the shadow as it is (no shadow in the commit)', async () => {
        const device = await aStoredDevice();
        const shadow = aShadow(device, { x: 1 }, 1);
        await stores.shadows.commitShadowWrite({ shadow, expectedRev: 0, points: [] });
        const old = [aPointOf(device.deviceid, 'x', T0 - 1000, 7)];

        expect(await stores.shadows.commitShadowWrite({ expectedRev: 1, points: old })).to.equal(true);

        expect(await stores.shadows.readShadow(device.deviceid)).to.deep.equal(shadow);
        expect(await drainOutbox(stores.shadows)).to.deep.equal(old);
      });

      it('keeps queued points across a restart of the store, and keeps them when their device is deleted', async () => {
        const device = await aStoredDevice();
        const points = [aPointOf(device.deviceid, 'x', T0, 1)];
        await stores.shadows.commitShadowWrite({ shadow: aShadow(device, { x: 1 }, 1), expectedRev: 0, points });
        await stores.devices.deleteDevice(device.deviceid);

        await stores.reopen();

        expect(await drainOutbox(stores.shadows)).to.deep.equal(points);
      });

      it("keeps each point's expiry, and its absence, through the outbox (retention, issue 23 §2)", async () => {
        const device = await aStoredDevice();
        const points = [{ ...aPointOf(device.deviceid, 'x', T0, 1), expiresAt: T0 + 86_400_000 }, aPointOf(device.deviceid, 'y', T0, 2)];

        await stores.shadows.commitShadowWrite({ shadow: aShadow(device, { x: 1 }, 1), expectedRev: 0, points });

        expect(await drainOutbox(stores.shadows)).to.deep.equal(points);
      });

      it('answers an empty peek when nothing is queued, and remove of its mark does nothing', async () => {
        const empty = await stores.shadows.peek(100);

        await stores.shadows.remove(empty.upTo);

        expect(empty.points).to.deep.equal([]);
      });
    });
  });
}

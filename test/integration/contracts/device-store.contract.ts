import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Device } from '../../../src/devices/device';
import { aDeviceRecord, codeOf, keptCredentials, OpenStores, OpenStoresFn, rejectionOf, secretOf, testCredentialKey, tokenOf } from './store-under-test';

const names = (devices: Device[]) => devices.map((d) => `${d.projectid}/${d.groupid}/${d.alias}`);

/**
 * `read` tried again while the store says it is unavailable, at most for `ms`: Cassandra builds a new index over the
 * rows it holds in the background, and a look-up fails until it is done (cassandra-device-store.ts).
 */
async function whileBuilding<T>(read: () => Promise<T>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await read();
    } catch (err) {
      if (codeOf(err) !== 'BACKEND_UNAVAILABLE' || Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** DeviceStore (src/devices/port.ts): what every adapter must do, whatever it stores in. */
export function deviceStoreContract(adapter: string, open: OpenStoresFn): void {
  describe(`DeviceStore contract: ${adapter}`, () => {
    let stores: OpenStores;
    before(async () => {
      stores = await open();
    });
    after(async () => {
      await stores?.dispose();
    });
    /** A fresh project per test, so the tests of one suite never see each other's devices. */
    const aProject = () => `p-${randomUUID().slice(0, 8)}`;

    describe('insertDevice and getDevice', () => {
      it('stores every field and reads them back as they were', async () => {
        const device = aDeviceRecord({ enabled: false, banned: true, description: 'ünïcode ✓', livenessttl: 30, created: 1_700_000_000_123 });

        await stores.devices.insertDevice(device);

        expect(await stores.devices.getDevice(device.deviceid)).to.deep.equal(device);
      });

      it('answers undefined for a device never stored', async () => {
        expect(await stores.devices.getDevice(randomUUID())).to.equal(undefined);
      });

      it('refuses an alias already used in the same group with ALIAS_TAKEN, and keeps the first device', async () => {
        const first = aDeviceRecord();
        await stores.devices.insertDevice(first);
        const second = aDeviceRecord({ projectid: first.projectid, groupid: first.groupid, alias: first.alias });

        const err = await rejectionOf(stores.devices.insertDevice(second));

        expect(codeOf(err)).to.equal('ALIAS_TAKEN');
        expect(await stores.devices.getDevice(second.deviceid)).to.equal(undefined);
        expect(await stores.devices.findDevicesByAlias(first.projectid, first.alias)).to.deep.equal([first]);
      });

      it('refuses a device id already stored with DEVICE_ID_TAKEN, and keeps the first device and its alias free', async () => {
        const first = aDeviceRecord();
        await stores.devices.insertDevice(first);
        const second = aDeviceRecord({ deviceid: first.deviceid });

        const err = await rejectionOf(stores.devices.insertDevice(second));

        expect(codeOf(err)).to.equal('DEVICE_ID_TAKEN');
        expect(await stores.devices.getDevice(first.deviceid)).to.deep.equal(first);
        expect(await stores.devices.findDevicesByAlias(second.projectid, second.alias)).to.deep.equal([]);
      });

      it('stores a device under the id of a deleted one, with a shadow of its own (ids can be given, issue 18)', async () => {
        const gone = aDeviceRecord();
        await stores.devices.insertDevice(gone);
        const written = { deviceid: gone.deviceid, data: { old: 1 }, rev: 1, modified: 1, timestamp: 1 };
        expect(await stores.shadows.commitShadowWrite({ shadow: written, expectedRev: 0, points: [] })).to.equal(true);
        await stores.devices.deleteDevice(gone.deviceid);
        const again = aDeviceRecord({ deviceid: gone.deviceid });

        await stores.devices.insertDevice(again);

        expect(await stores.devices.getDevice(again.deviceid)).to.deep.equal(again);
        expect(await stores.shadows.readShadow(again.deviceid)).to.equal(undefined);
      });

      it('lets one alias be used once in each group and in each project', async () => {
        const device = aDeviceRecord();
        const otherGroup = aDeviceRecord({ projectid: device.projectid, alias: device.alias });
        const otherProject = aDeviceRecord({ groupid: device.groupid, alias: device.alias });

        for (const d of [device, otherGroup, otherProject]) await stores.devices.insertDevice(d);

        for (const d of [device, otherGroup, otherProject]) expect(await stores.devices.getDevice(d.deviceid)).to.deep.equal(d);
      });

      it('lets exactly one of ten concurrent inserts of one alias in one group win', async () => {
        const projectid = aProject();
        const contenders = Array.from({ length: 10 }, () => aDeviceRecord({ projectid, groupid: 'g', alias: 'same' }));

        const outcomes = await Promise.allSettled(contenders.map((d) => stores.devices.insertDevice(d)));

        expect(outcomes.filter((o) => o.status === 'fulfilled')).to.have.length(1);
        const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [codeOf(o.reason)] : []));
        expect(refused).to.deep.equal(Array(9).fill('ALIAS_TAKEN'));
        expect(await stores.devices.listDevices({ projectid })).to.have.length(1);
      });
    });

    describe('findDevicesByAlias', () => {
      it('finds the device of each group of the project that uses the alias, and none of other projects', async () => {
        const projectid = aProject();
        const a = aDeviceRecord({ projectid, groupid: 'g-a', alias: 'sensor' });
        const b = aDeviceRecord({ projectid, groupid: 'g-b', alias: 'sensor' });
        const other = aDeviceRecord({ projectid, groupid: 'g-a', alias: 'other' });
        const elsewhere = aDeviceRecord({ groupid: 'g-a', alias: 'sensor' });
        for (const d of [a, b, other, elsewhere]) await stores.devices.insertDevice(d);

        const found = await stores.devices.findDevicesByAlias(projectid, 'sensor');

        expect(found).to.have.deep.members([a, b]);
        expect(await stores.devices.findDevicesByAlias(projectid, 'nobody')).to.deep.equal([]);
      });
    });

    describe('findDeviceByToken', () => {
      it('finds the device holding the token, every field as stored, and only that one', async () => {
        const device = aDeviceRecord({ description: 'by token', livenessttl: 12 });
        const other = aDeviceRecord({ projectid: device.projectid, groupid: device.groupid });
        for (const d of [device, other]) await stores.devices.insertDevice(d);

        expect(await stores.devices.findDeviceByToken(tokenOf(device))).to.deep.equal(device);
        expect(await stores.devices.findDeviceByToken(tokenOf(other))).to.deep.equal(other);
      });

      it('answers undefined for a token no device holds, for another device\'s secret, a prefix of a token and a stored digest', async () => {
        const device = aDeviceRecord();
        await stores.devices.insertDevice(device);

        for (const token of [`tok-${randomUUID()}`, secretOf(device), tokenOf(device).slice(0, -1), device.deviceid, device.token]) {
          expect(await stores.devices.findDeviceByToken(token), token).to.equal(undefined);
        }
      });

      it('follows a token rotation: the new token finds the device, the old one nothing', async () => {
        const device = aDeviceRecord();
        await stores.devices.insertDevice(device);
        const rotated: Device = { ...device, ...keptCredentials(`tok-${randomUUID()}`) };

        expect(await stores.devices.replaceDevice(rotated)).to.equal(true);

        expect(await stores.devices.findDeviceByToken(tokenOf(rotated))).to.deep.equal(rotated);
        expect(await stores.devices.findDeviceByToken(tokenOf(device))).to.equal(undefined);
      });

      it('follows other changes of the record: a rename and a move are what the token finds', async () => {
        const device = aDeviceRecord({ groupid: 'from', alias: 'before' });
        await stores.devices.insertDevice(device);
        const moved: Device = { ...device, groupid: 'to', alias: 'after', enabled: false };

        await stores.devices.replaceDevice(moved);

        expect(await stores.devices.findDeviceByToken(tokenOf(device))).to.deep.equal(moved);
      });

      it('finds nothing once the device is deleted', async () => {
        const device = aDeviceRecord();
        await stores.devices.insertDevice(device);

        await stores.devices.deleteDevice(device.deviceid);

        expect(await stores.devices.findDeviceByToken(tokenOf(device))).to.equal(undefined);
      });

      it('tells no holder, one holder and a shared token apart with tokenHolders', async () => {
        const token = `tok-${randomUUID()}`;
        const [a, b] = [aDeviceRecord({ token }), aDeviceRecord({ token })];

        expect(await stores.devices.tokenHolders(token)).to.deep.equal([]);
        await stores.devices.insertDevice(a);
        expect(await stores.devices.tokenHolders(token)).to.deep.equal([a.deviceid]);
        await stores.devices.insertDevice(b);
        expect((await stores.devices.tokenHolders(token)).sort()).to.deep.equal([a.deviceid, b.deviceid].sort());
      });

      it('names neither of two devices holding one token (tokens are random; a shared one authenticates nobody)', async () => {
        const token = `tok-${randomUUID()}`;
        for (const d of [aDeviceRecord({ token }), aDeviceRecord({ token })]) await stores.devices.insertDevice(d);

        expect(await stores.devices.findDeviceByToken(token)).to.equal(undefined);
      });

      it('finds devices stored before the store had its token index, once the store is reopened', async () => {
        const device = aDeviceRecord();
        await stores.dropTokenIndex();
        await stores.devices.insertDevice(device);

        await stores.reopen();

        expect(await whileBuilding(() => stores.devices.findDeviceByToken(tokenOf(device)))).to.deep.equal(device);
      });
    });

    describe('credentials at rest (issue 20 §1)', () => {
      it('stores the keyed digests of the token and secret, never the plaintexts', async () => {
        const device = aDeviceRecord();
        await stores.devices.insertDevice(device);

        const stored = await stores.storedCredentials(device.deviceid);

        expect(stored).to.deep.equal({ token: testCredentialKey.digest(tokenOf(device)), secret: testCredentialKey.digest(secretOf(device)) });
        expect(JSON.stringify(stored)).not.to.include(tokenOf(device)).and.not.to.include(secretOf(device));
      });

      it('reads a row an older release wrote in plaintext as digests, and finds it by its token', async () => {
        const [token, secret] = [`old-${randomUUID()}`, `olds-${randomUUID()}`];
        const device = { ...aDeviceRecord(), token: testCredentialKey.digest(token), secret: testCredentialKey.digest(secret) };
        await stores.writeAsOlderRelease(device, token, secret);

        expect(await stores.devices.getDevice(device.deviceid)).to.deep.equal(device);
        expect(await whileBuilding(() => stores.devices.findDeviceByToken(token))).to.deep.equal(device);
        expect(await stores.devices.tokenHolders(token)).to.deep.equal([device.deviceid]);
        expect(await stores.devices.findDeviceByToken(device.token), 'its digest is no token').to.equal(undefined);
      });
    });

    describe('listDevices', () => {
      it('filters by project and by project and group, sorted by project, group, alias', async () => {
        const [p1, p2] = [aProject(), aProject()].sort();
        const stored = [
          aDeviceRecord({ projectid: p2, groupid: 'g1', alias: 'a' }),
          aDeviceRecord({ projectid: p1, groupid: 'g2', alias: 'b' }),
          aDeviceRecord({ projectid: p1, groupid: 'g1', alias: 'z' }),
          aDeviceRecord({ projectid: p1, groupid: 'g1', alias: 'B' }),
          aDeviceRecord({ projectid: p1, groupid: 'g2', alias: 'a' }),
        ];
        for (const d of stored) await stores.devices.insertDevice(d);

        const project = await stores.devices.listDevices({ projectid: p1 });
        const group = await stores.devices.listDevices({ projectid: p1, groupid: 'g2' });
        const everything = (await stores.devices.listDevices({})).filter((d) => d.projectid === p1 || d.projectid === p2);

        expect(names(project)).to.deep.equal([`${p1}/g1/B`, `${p1}/g1/z`, `${p1}/g2/a`, `${p1}/g2/b`]);
        expect(names(group)).to.deep.equal([`${p1}/g2/a`, `${p1}/g2/b`]);
        expect(names(everything)).to.deep.equal([...names(project), `${p2}/g1/a`]);
        expect(everything[0]).to.deep.equal(stored[3]);
      });

      it('filters by group alone across projects', async () => {
        const groupid = `g-${randomUUID().slice(0, 8)}`;
        const [p1, p2] = [aProject(), aProject()].sort();
        await stores.devices.insertDevice(aDeviceRecord({ projectid: p2, groupid, alias: 'x' }));
        await stores.devices.insertDevice(aDeviceRecord({ projectid: p1, groupid, alias: 'y' }));
        await stores.devices.insertDevice(aDeviceRecord({ projectid: p1, alias: 'y' }));

        expect(names(await stores.devices.listDevices({ groupid }))).to.deep.equal([`${p1}/${groupid}/y`, `${p2}/${groupid}/x`]);
      });

      it('answers an empty list for a project without devices', async () => {
        expect(await stores.devices.listDevices({ projectid: aProject() })).to.deep.equal([]);
      });
    });

    describe('replaceDevice', () => {
      it('replaces every field but the project and the creation time', async () => {
        const device = aDeviceRecord();
        await stores.devices.insertDevice(device);
        const changed: Device = { ...device, ...keptCredentials('new-token-value'), enabled: false, banned: true, description: 'd', livenessttl: 9 };

        expect(await stores.devices.replaceDevice(changed)).to.equal(true);

        expect(await stores.devices.getDevice(device.deviceid)).to.deep.equal(changed);
      });

      it('answers false for a device that is gone, and stores nothing', async () => {
        const device = aDeviceRecord();

        expect(await stores.devices.replaceDevice(device)).to.equal(false);

        expect(await stores.devices.getDevice(device.deviceid)).to.equal(undefined);
        expect(await stores.devices.listDevices({ projectid: device.projectid })).to.deep.equal([]);
      });

      it('renames: the new alias is found, the old one is free for another device', async () => {
        const device = aDeviceRecord({ alias: 'old' });
        await stores.devices.insertDevice(device);
        const renamed = { ...device, alias: 'new' };

        expect(await stores.devices.replaceDevice(renamed)).to.equal(true);

        expect(await stores.devices.findDevicesByAlias(device.projectid, 'new')).to.deep.equal([renamed]);
        expect(await stores.devices.findDevicesByAlias(device.projectid, 'old')).to.deep.equal([]);
        const successor = aDeviceRecord({ projectid: device.projectid, groupid: device.groupid, alias: 'old' });
        await stores.devices.insertDevice(successor);
        expect(names(await stores.devices.listDevices({ projectid: device.projectid }))).to.deep.equal([
          `${device.projectid}/${device.groupid}/new`,
          `${device.projectid}/${device.groupid}/old`,
        ]);
      });

      it('moves a device to another group: its alias is taken there and free in the old group', async () => {
        const device = aDeviceRecord({ groupid: 'from', alias: 'mover' });
        await stores.devices.insertDevice(device);
        const moved = { ...device, groupid: 'to' };

        expect(await stores.devices.replaceDevice(moved)).to.equal(true);

        expect(await stores.devices.listDevices({ projectid: device.projectid, groupid: 'to' })).to.deep.equal([moved]);
        expect(await stores.devices.listDevices({ projectid: device.projectid, groupid: 'from' })).to.deep.equal([]);
        const clash = aDeviceRecord({ projectid: device.projectid, groupid: 'to', alias: 'mover' });
        expect(codeOf(await rejectionOf(stores.devices.insertDevice(clash)))).to.equal('ALIAS_TAKEN');
        await stores.devices.insertDevice({ ...clash, groupid: 'from' });
      });

      it('refuses a rename to an alias used in the group with ALIAS_TAKEN and changes nothing', async () => {
        const device = aDeviceRecord({ alias: 'one' });
        const holder = aDeviceRecord({ projectid: device.projectid, groupid: device.groupid, alias: 'two' });
        await stores.devices.insertDevice(device);
        await stores.devices.insertDevice(holder);

        const err = await rejectionOf(stores.devices.replaceDevice({ ...device, alias: 'two', description: 'changed' }));

        expect(codeOf(err)).to.equal('ALIAS_TAKEN');
        expect(await stores.devices.getDevice(device.deviceid)).to.deep.equal(device);
        expect(await stores.devices.findDevicesByAlias(device.projectid, 'two')).to.deep.equal([holder]);
        expect(await stores.devices.findDevicesByAlias(device.projectid, 'one')).to.deep.equal([device]);
      });

      it('can rename a device back to the alias it had', async () => {
        const device = aDeviceRecord({ alias: 'first' });
        await stores.devices.insertDevice(device);

        await stores.devices.replaceDevice({ ...device, alias: 'second' });
        await stores.devices.replaceDevice(device);

        expect(await stores.devices.findDevicesByAlias(device.projectid, 'first')).to.deep.equal([device]);
        expect(await stores.devices.findDevicesByAlias(device.projectid, 'second')).to.deep.equal([]);
      });
    });

    describe('deleteDevice', () => {
      it('answers true once, then false, and frees the alias', async () => {
        const device = aDeviceRecord();
        await stores.devices.insertDevice(device);

        expect(await stores.devices.deleteDevice(device.deviceid)).to.equal(true);
        expect(await stores.devices.deleteDevice(device.deviceid)).to.equal(false);

        expect(await stores.devices.getDevice(device.deviceid)).to.equal(undefined);
        expect(await stores.devices.listDevices({ projectid: device.projectid })).to.deep.equal([]);
        await stores.devices.insertDevice(aDeviceRecord({ projectid: device.projectid, groupid: device.groupid, alias: device.alias }));
      });

      it('keeps devices across a restart of the store', async () => {
        const device = aDeviceRecord();
        await stores.devices.insertDevice(device);

        await stores.reopen();

        expect(await stores.devices.getDevice(device.deviceid)).to.deep.equal(device);
        expect(await stores.devices.findDevicesByAlias(device.projectid, device.alias)).to.deep.equal([device]);
      });
    });
  });
}

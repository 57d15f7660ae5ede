import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { decodeOrThrow } from '../../../src/core/decode-errors';
import { EventHook, TriggerList } from '../../../src/triggers/codecs';
import { Delivery } from '../../../src/triggers/port';
import { OpenStores, OpenStoresFn } from './store-under-test';

const aTriggerList = (title: string): TriggerList =>
  decodeOrThrow(TriggerList, { enabled: true, trigger: [{ id: '1', title, event: 'SHADOW.UPDATED', condition: '$NEW.temp > 30', action: 'alarm' }] });
const aHook = (topic: string): EventHook => decodeOrThrow(EventHook, { type: 'MESSAGE', config: { topic: `@msg/${topic}` } });
const aProject = () => `p-${randomUUID().slice(0, 8)}`;

/** An entry of the delivery log without its id; `n` tells entries apart. */
const anEntry = (projectid: string, deviceid: string, n: number): Omit<Delivery, 'id'> => ({
  at: Date.UTC(2024, 0, 1) + n,
  projectid,
  deviceid,
  triggerid: String(n),
  event: 'SHADOW.UPDATED',
  hook: 'alarm',
  outcome: 'delivered',
  target: 'MESSAGE @msg/alarm',
  attempts: 1,
  durationMs: 3,
});
const withoutId = ({ id: _id, ...entry }: Delivery) => entry;

/** TriggerStore and DeliveryLog (src/triggers/port.ts): what every adapter must do, whatever it stores in. */
export function triggerStoreContract(adapter: string, open: OpenStoresFn): void {
  describe(`TriggerStore and DeliveryLog contract: ${adapter}`, () => {
    let stores: OpenStores;
    before(async () => {
      stores = await open();
    });
    after(async () => {
      await stores?.dispose();
    });

    describe('triggers', () => {
      it('answers undefined for a device without triggers, and reads a stored list back as it was', async () => {
        const deviceid = randomUUID();
        expect(await stores.triggers.getTriggers(deviceid)).to.equal(undefined);

        await stores.triggers.putTriggers(deviceid, aTriggerList('hot'));

        expect(await stores.triggers.getTriggers(deviceid)).to.deep.equal(aTriggerList('hot'));
      });

      it('replaces the whole list, and deletes it once: true, then false', async () => {
        const deviceid = randomUUID();
        await stores.triggers.putTriggers(deviceid, aTriggerList('hot'));
        await stores.triggers.putTriggers(deviceid, aTriggerList('cold'));
        expect(await stores.triggers.getTriggers(deviceid)).to.deep.equal(aTriggerList('cold'));

        expect(await stores.triggers.deleteTriggers(deviceid)).to.equal(true);
        expect(await stores.triggers.deleteTriggers(deviceid)).to.equal(false);
        expect(await stores.triggers.getTriggers(deviceid)).to.equal(undefined);
      });

      it('after a restart, a list deleted before it stays gone and a device given its first list reads it', async () => {
        const [deleted, fresh] = [randomUUID(), randomUUID()];
        await stores.triggers.putTriggers(deleted, aTriggerList('cold'));
        await stores.triggers.deleteTriggers(deleted);

        await stores.reopen();

        expect(await stores.triggers.getTriggers(deleted)).to.equal(undefined);
        expect(await stores.triggers.getTriggers(fresh)).to.equal(undefined);
        await stores.triggers.putTriggers(fresh, aTriggerList('new'));
        expect(await stores.triggers.getTriggers(fresh)).to.deep.equal(aTriggerList('new'));
      });
    });

    describe('event hooks', () => {
      it('keeps hooks per project and lists them sorted by name in byte order', async () => {
        const projectid = aProject();
        for (const name of ['beta', 'Alpha', 'alpha', '_x']) await stores.triggers.putHook(projectid, name, aHook(name));
        await stores.triggers.putHook(aProject(), 'other', aHook('other'));

        const listed = await stores.triggers.listHooks(projectid);

        expect(listed.map((h) => h.name)).to.deep.equal(['Alpha', '_x', 'alpha', 'beta']);
        expect(listed[0].hook).to.deep.equal(aHook('Alpha'));
        expect(await stores.triggers.getHook(projectid, 'beta')).to.deep.equal(aHook('beta'));
        expect(await stores.triggers.getHook(projectid, 'other')).to.equal(undefined);
      });

      it('replaces a hook by name, and deletes it once: true, then false', async () => {
        const projectid = aProject();
        await stores.triggers.putHook(projectid, 'alarm', aHook('one'));
        await stores.triggers.putHook(projectid, 'alarm', aHook('two'));
        expect(await stores.triggers.getHook(projectid, 'alarm')).to.deep.equal(aHook('two'));

        expect(await stores.triggers.deleteHook(projectid, 'alarm')).to.equal(true);
        expect(await stores.triggers.deleteHook(projectid, 'alarm')).to.equal(false);
        expect(await stores.triggers.listHooks(projectid)).to.deep.equal([]);
      });

      it('keeps triggers and hooks across a restart', async () => {
        const projectid = aProject();
        const deviceid = randomUUID();
        await stores.triggers.putHook(projectid, 'alarm', aHook('alarm'));
        await stores.triggers.putTriggers(deviceid, aTriggerList('hot'));

        await stores.reopen();

        expect(await stores.triggers.getHook(projectid, 'alarm')).to.deep.equal(aHook('alarm'));
        expect(await stores.triggers.getTriggers(deviceid)).to.deep.equal(aTriggerList('hot'));
      });
    });

    describe('delivery log', () => {
      it('is empty for a project that logged nothing', async () => {
        expect(await stores.deliveries.list(aProject(), { limit: 100 })).to.deep.equal([]);
      });

      it('lists the newest entries first, with distinct ids that go down, as many as asked for', async () => {
        const projectid = aProject();
        for (let n = 1; n <= 5; n++) await stores.deliveries.append(anEntry(projectid, 'd1', n));

        const all = await stores.deliveries.list(projectid, { limit: 100 });
        const two = await stores.deliveries.list(projectid, { limit: 2 });

        expect(all.map(withoutId)).to.deep.equal([5, 4, 3, 2, 1].map((n) => anEntry(projectid, 'd1', n)));
        const ids = all.map((d) => d.id);
        expect(ids.every((id, i) => Number.isSafeInteger(id) && (i === 0 || id < ids[i - 1]))).to.equal(true);
        expect(two).to.deep.equal(all.slice(0, 2));
      });

      it('lists one device\'s entries when asked, and keeps projects apart', async () => {
        const projectid = aProject();
        await stores.deliveries.append(anEntry(projectid, 'd1', 1));
        await stores.deliveries.append(anEntry(projectid, 'd2', 2));
        await stores.deliveries.append(anEntry(projectid, 'd1', 3));
        await stores.deliveries.append(anEntry(aProject(), 'd1', 4));

        const d1 = await stores.deliveries.list(projectid, { deviceid: 'd1', limit: 100 });

        expect(d1.map(withoutId)).to.deep.equal([anEntry(projectid, 'd1', 3), anEntry(projectid, 'd1', 1)]);
        expect(await stores.deliveries.list(projectid, { deviceid: 'd3', limit: 100 })).to.deep.equal([]);
      });

      it('keeps every entry of concurrent appends, and an entry without its optional fields as it was', async () => {
        const projectid = aProject();
        const bare: Omit<Delivery, 'id'> = { at: 1, projectid, deviceid: 'd', triggerid: '1', event: 'DEVICE.STATUSCHANGED', outcome: 'quota_exceeded' };

        await Promise.all([bare, ...Array.from({ length: 20 }, (_, n) => anEntry(projectid, 'd', n))].map((e) => stores.deliveries.append(e)));

        const listed = await stores.deliveries.list(projectid, { limit: 100 });
        expect(listed).to.have.length(21);
        expect(new Set(listed.map((d) => d.id)).size).to.equal(21);
        expect(listed.map(withoutId)).to.deep.include(bare);
      });
    });
  });
}

import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { decodeOrThrow } from '../../../src/core/decode-errors';
import { Datatag, DatatagRequest, datatagOf } from '../../../src/datatags/codecs';
import { DatatagOwner, DatatagStore } from '../../../src/datatags/port';

export interface OpenDatatagStore {
  /** The store over the data as it is now (a new one after `reopen`). */
  store(): DatatagStore;
  /** Closes and opens the same data again, as a restart of the service does. */
  reopen(): Promise<void>;
  dispose(): Promise<void>;
}

/** A tag as the service stores it (decoded, defaults filled in). */
const aTag = (attr: string, more: Partial<DatatagRequest> = {}): Datatag =>
  datatagOf(decodeOrThrow(DatatagRequest, { path: `env.${attr}`, type: 'number', attr, ttl: '30d', ...more }));

/** DatatagStore (src/datatags/port.ts): what every adapter must do, whatever it stores in. */
export function datatagStoreContract(adapter: string, open: () => Promise<OpenDatatagStore>): void {
  describe(`DatatagStore contract: ${adapter}`, () => {
    let opened: OpenDatatagStore;
    before(async () => {
      opened = await open();
    });
    after(async () => {
      await opened?.dispose();
    });
    const aDevice = (): DatatagOwner => ({ deviceid: randomUUID() });
    const aGroup = (): DatatagOwner => ({ projectid: `p-${randomUUID().slice(0, 8)}`, groupid: 'g' });

    it('answers an empty list for an owner without datatags', async () => {
      expect(await opened.store().listDatatags(aDevice())).to.deep.equal([]);
      expect(await opened.store().listDatatags(aGroup())).to.deep.equal([]);
    });

    it('keeps a device\'s tags and a group default apart, each read back ordered by attr, as stored', async () => {
      const device = aDevice();
      const group = aGroup();
      const tags = [aTag('temp', { expression: '$.value * 1.8 + 32', unit: 'F', description: 'temperature' }), aTag('humid', { type: 'boolean', ttl: 3000 })];

      await opened.store().replaceDatatags(device, tags);
      await opened.store().replaceDatatags(group, [aTag('co2')]);

      expect(await opened.store().listDatatags(device)).to.deep.equal([tags[1], tags[0]]);
      expect(await opened.store().listDatatags(group)).to.deep.equal([aTag('co2')]);
      expect(await opened.store().listDatatags({ ...group, groupid: 'other' } as DatatagOwner)).to.deep.equal([]);
    });

    it('replaces the whole list: tags left out are gone, an empty list removes them all', async () => {
      const owner = aDevice();
      await opened.store().replaceDatatags(owner, [aTag('a'), aTag('b')]);

      await opened.store().replaceDatatags(owner, [aTag('b', { unit: 'x' }), aTag('c')]);
      expect(await opened.store().listDatatags(owner)).to.deep.equal([aTag('b', { unit: 'x' }), aTag('c')]);

      await opened.store().replaceDatatags(owner, []);
      expect(await opened.store().listDatatags(owner)).to.deep.equal([]);
    });

    it('puts one tag by its attr, adding or replacing it, leaving the others', async () => {
      const owner = aGroup();
      await opened.store().replaceDatatags(owner, [aTag('a'), aTag('b')]);

      await opened.store().putDatatag(owner, { ...aTag('a'), enabled: false });
      await opened.store().putDatatag(owner, aTag('c'));

      expect(await opened.store().listDatatags(owner)).to.deep.equal([{ ...aTag('a'), enabled: false }, aTag('b'), aTag('c')]);
    });

    it('deletes one tag once: true, then false, leaving its siblings and other owners alone', async () => {
      const owner = aDevice();
      const other = aDevice();
      await opened.store().replaceDatatags(owner, [aTag('a'), aTag('b')]);
      await opened.store().replaceDatatags(other, [aTag('a')]);

      expect(await opened.store().deleteDatatag(owner, 'a')).to.equal(true);
      expect(await opened.store().deleteDatatag(owner, 'a')).to.equal(false);

      expect(await opened.store().listDatatags(owner)).to.deep.equal([aTag('b')]);
      expect(await opened.store().listDatatags(other)).to.deep.equal([aTag('a')]);
    });

    it('keeps datatags across a restart', async () => {
      const owner = aDevice();
      await opened.store().replaceDatatags(owner, [aTag('a', { name: 'Room A' })]);

      await opened.reopen();

      expect(await opened.store().listDatatags(owner)).to.deep.equal([aTag('a', { name: 'Room A' })]);
    });
  });
}

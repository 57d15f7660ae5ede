import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { decodeOrThrow } from '../../../src/core/decode-errors';
import { ShadowSchema } from '../../../src/schema/codecs';
import { SchemaOwner } from '../../../src/schema/port';
import { OpenStores, OpenStoresFn } from './store-under-test';

/** A schema as the service stores it (decoded), told apart by its description. */
const aSchema = (description: string): ShadowSchema =>
  decodeOrThrow(ShadowSchema, {
    description,
    additionalProperties: false,
    properties: { tempF: { type: 'number', autofill: true, operation: { transform: { expression: '($.tempC * 1.8) + 32', dp: 2 } } }, tempC: { type: 'number' } },
  });

/** SchemaStore (src/schema/port.ts): what every adapter must do, whatever it stores in. */
export function schemaStoreContract(adapter: string, open: OpenStoresFn): void {
  describe(`SchemaStore contract: ${adapter}`, () => {
    let stores: OpenStores;
    before(async () => {
      stores = await open();
    });
    after(async () => {
      await stores?.dispose();
    });
    const aDeviceOwner = (): SchemaOwner => ({ deviceid: randomUUID() });
    const aGroupOwner = (): SchemaOwner => ({ projectid: `p-${randomUUID().slice(0, 8)}`, groupid: 'g' });

    it('answers undefined for an owner without a schema', async () => {
      expect(await stores.schemas.getSchema(aDeviceOwner())).to.equal(undefined);
      expect(await stores.schemas.getSchema(aGroupOwner())).to.equal(undefined);
    });

    it('keeps a device schema and a group default apart, and reads each back as stored', async () => {
      const device = aDeviceOwner();
      const group = aGroupOwner();

      await stores.schemas.putSchema(device, aSchema('C'));
      await stores.schemas.putSchema(group, aSchema('F'));

      expect(await stores.schemas.getSchema(device)).to.deep.equal(aSchema('C'));
      expect(await stores.schemas.getSchema(group)).to.deep.equal(aSchema('F'));
      expect(await stores.schemas.getSchema({ ...group, groupid: 'other' } as SchemaOwner)).to.equal(undefined);
    });

    it('replaces a schema with the next put', async () => {
      const owner = aDeviceOwner();
      await stores.schemas.putSchema(owner, aSchema('C'));

      await stores.schemas.putSchema(owner, aSchema('K'));

      expect(await stores.schemas.getSchema(owner)).to.deep.equal(aSchema('K'));
    });

    it('deletes a schema once: true, then false, leaving other owners alone', async () => {
      const owner = aGroupOwner();
      const other = aGroupOwner();
      await stores.schemas.putSchema(owner, aSchema('C'));
      await stores.schemas.putSchema(other, aSchema('C'));

      expect(await stores.schemas.deleteSchema(owner)).to.equal(true);
      expect(await stores.schemas.deleteSchema(owner)).to.equal(false);

      expect(await stores.schemas.getSchema(owner)).to.equal(undefined);
      expect(await stores.schemas.getSchema(other)).to.deep.equal(aSchema('C'));
    });

    it('keeps schemas across a restart, and a put after a delete stands', async () => {
      const owner = aDeviceOwner();
      await stores.schemas.putSchema(owner, aSchema('C'));
      await stores.schemas.deleteSchema(owner);
      await stores.schemas.putSchema(owner, aSchema('F'));

      await stores.reopen();

      expect(await stores.schemas.getSchema(owner)).to.deep.equal(aSchema('F'));
    });
  });
}

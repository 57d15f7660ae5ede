import { expect } from 'chai';
import { DeviceClient, DeviceTransport, expectDeviceError } from '../../helpers/device-transport';
import { aDevice, aGroup } from '../../helpers/devices';
import { startStack, Stack } from '../../helpers/stack';

/** Reading and writing a device's shadow (spec 4.4, netpie reference §4): the same rules over every transport. */
export function shadowDataScenarios(transport: DeviceTransport): void {
  describe('the shadow of a device', () => {
    let stack: Stack;
    before(async () => {
      stack = await startStack();
    });
    after(() => stack.stop());

    async function aClient(): Promise<{ client: DeviceClient; deviceid: string }> {
      const device = await aDevice(stack);
      return { client: transport.clientOf(stack, device), deviceid: device.deviceid };
    }

    /** A fresh device whose shadow already holds `data`, written as an overwrite. */
    async function deviceWithShadow(data: object): Promise<{ client: DeviceClient; deviceid: string }> {
      const { client, deviceid } = await aClient();
      const res = await client.writeShadow({ data }, 'overwrite');
      expect(res.status, res.text).to.equal(200);
      return { client, deviceid };
    }

    describe('reading', () => {
      it('returns an empty shadow at rev 0 for a device that never wrote one', async () => {
        const { client, deviceid } = await aClient();

        const res = await client.readShadow();

        expect(res.status).to.equal(200);
        expect(res.body).to.deep.equal({ deviceid, data: {}, rev: 0, modified: 0, timestamp: 0 });
      });

      it('returns what the last write left, with the same rev, modified and timestamp', async () => {
        const { client, deviceid } = await deviceWithShadow({ temp: 21.5, tags: ['a', 'b'] });
        const written = await client.writeShadow({ data: { hum: 40 } }, 'merge');

        const res = await client.readShadow();

        expect(res.body).to.deep.equal({
          deviceid,
          data: { temp: 21.5, tags: ['a', 'b'], hum: 40 },
          rev: written.body.rev,
          modified: written.body.modified,
          timestamp: written.body.timestamp,
        });
      });
    });

    describe('a merge (PUT)', () => {
      it('merges nested objects and deletes keys set to null', async () => {
        const { client } = await deviceWithShadow({ room: { temp: 20, hum: 40, lamp: { on: true } }, gone: 1, kept: 'x' });

        const res = await client.writeShadow(
          { data: { room: { temp: 22, lamp: { on: null, level: 3 } }, gone: null, added: { deep: { v: 1 } } } },
          'merge',
        );

        expect(res.status).to.equal(200);
        expect(res.body.data).to.deep.equal({ room: { temp: 22, hum: 40, lamp: { level: 3 } }, kept: 'x', added: { deep: { v: 1 } } });
        expect((await client.readShadow()).body.data).to.deep.equal(res.body.data);
      });

      it('replaces arrays and scalars whole, and an object by a scalar or the other way round', async () => {
        const { client } = await deviceWithShadow({ list: [1, 2, 3], n: 1, s: 'a', obj: { a: 1 }, scalar: 5 });

        const res = await client.writeShadow(
          { data: { list: [9], n: 'now a string', s: false, obj: 7, scalar: { now: 'object' } } },
          'merge',
        );

        expect(res.body.data).to.deep.equal({ list: [9], n: 'now a string', s: false, obj: 7, scalar: { now: 'object' } });
      });

      it('overwrites the whole document when the body says merged:false', async () => {
        const { client } = await deviceWithShadow({ a: 1, b: { c: 2 } });

        const res = await client.writeShadow({ data: { b: { d: 3 } }, merged: false }, 'merge');

        expect(res.body.data).to.deep.equal({ b: { d: 3 } });
      });

      it('deletes a member set to null, and leaves a back-dated write unapplied', async () => {
        const { client } = await deviceWithShadow({ a: 1, b: 2 });

        const deleted = await client.writeShadow({ data: { a: null } }, 'merge');
        const backDated = await client.writeShadow({ data: { b: 9 }, timestamp: 1_000_000_000_000 }, 'merge');

        expect(deleted.body.data).to.deep.equal({ b: 2 });
        expect(backDated.status).to.equal(200);
        expect(backDated.body).to.deep.include({ applied: false, data: { b: 2 } });
      });
    });

    describe('an overwrite (POST)', () => {
      it('replaces the whole document', async () => {
        const { client } = await deviceWithShadow({ a: 1, b: { c: 2 } });

        const res = await client.writeShadow({ data: { b: { d: 3 } } }, 'overwrite');

        expect(res.status).to.equal(200);
        expect(res.body.data).to.deep.equal({ b: { d: 3 } });
        expect((await client.readShadow()).body.data).to.deep.equal({ b: { d: 3 } });
      });

      it('leaves out members set to null', async () => {
        const { client } = await deviceWithShadow({ a: 1 });

        const res = await client.writeShadow({ data: { a: null, b: 2, c: { d: null, e: 1 } } }, 'overwrite');

        expect(res.body.data).to.deep.equal({ b: 2, c: { e: 1 } });
      });

      it('merges when the body says merged:true', async () => {
        const { client } = await deviceWithShadow({ a: 1, b: { c: 2 } });

        const res = await client.writeShadow({ data: { b: { d: 3 } }, merged: true }, 'overwrite');

        expect(res.body.data).to.deep.equal({ a: 1, b: { c: 2, d: 3 } });
      });
    });

    describe('a merge and an overwrite in turn', () => {
      it('follows the method, or merged when given, write after write', async () => {
        const { client } = await aClient();
        await client.writeShadow({ data: { a: 1, b: 2 } }, 'merge');

        const overwritten = await client.writeShadow({ data: { c: 3 } }, 'overwrite');
        const mergedPost = await client.writeShadow({ data: { d: 4 }, merged: true }, 'overwrite');
        const overwritingPut = await client.writeShadow({ data: { e: 5 }, merged: false }, 'merge');

        expect(overwritten.body.data).to.deep.equal({ c: 3 });
        expect(mergedPost.body.data).to.deep.equal({ c: 3, d: 4 });
        expect(overwritingPut.body.data).to.deep.equal({ e: 5 });
      });
    });

    describe('the reply to a write', () => {
      it('is {deviceid, data, rev, modified, timestamp, applied} with the whole shadow in data', async () => {
        const { client, deviceid } = await deviceWithShadow({ a: 1 });
        const before = Date.now();

        const res = await client.writeShadow({ data: { b: 2 } }, 'merge');

        const after = Date.now();
        expect(res.body).to.have.all.keys('deviceid', 'data', 'rev', 'modified', 'timestamp', 'applied');
        expect(res.body).to.include({ deviceid, applied: true });
        expect(res.body.data).to.deep.equal({ a: 1, b: 2 });
        expect(res.body.modified).to.be.within(before, after);
        expect(res.body.timestamp).to.be.within(before, after);
      });

      it('counts rev up by one for every applied write, merge or overwrite', async () => {
        const { client } = await aClient();

        const revs: number[] = [];
        for (const mode of ['merge', 'overwrite', 'merge', 'merge', 'overwrite'] as const) {
          revs.push((await client.writeShadow({ data: { n: revs.length } }, mode)).body.rev);
        }

        expect(revs).to.deep.equal([1, 2, 3, 4, 5]);
        expect((await client.readShadow()).body.rev).to.equal(5);
      });
    });

    describe('?alias=', () => {
      it('reads and writes the shadow of a device of the same group', async () => {
        const [caller, lamp] = await aGroup(stack, 2);
        const client = transport.clientOf(stack, caller);

        const write = await client.writeShadow({ data: { on: true } }, 'merge', lamp.alias);
        const read = await client.readShadow(lamp.alias);

        expect(write.status).to.equal(200);
        expect(read.body).to.deep.include({ deviceid: lamp.deviceid, data: { on: true } });
      });

      it('answers 403 OTHER_GROUP for an alias of another group and 404 ALIAS_NOT_FOUND for an unknown one', async () => {
        const device = await aDevice(stack);
        const outsider = await aDevice(stack, { projectid: device.projectid });
        const client = transport.clientOf(stack, device);

        const otherGroup = await client.readShadow(outsider.alias);
        const unknown = await client.writeShadow({ data: { a: 1 } }, 'merge', 'nobody');

        expectDeviceError(otherGroup, 403, 'OTHER_GROUP');
        expectDeviceError(unknown, 404, 'ALIAS_NOT_FOUND');
      });
    });

    describe('size', () => {
      it('answers 413 SHADOW_TOO_LARGE when the shadow would exceed 64 KiB, and applies nothing', async () => {
        const { client } = await aClient();

        const res = await client.writeShadow({ data: { text: 'x'.repeat(70_000) } }, 'merge');

        expectDeviceError(res, 413, 'SHADOW_TOO_LARGE');
        expect((await client.readShadow()).body.rev).to.equal(0);
      });
    });
  });
}

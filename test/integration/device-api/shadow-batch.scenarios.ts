import { expect } from 'chai';
import { DeviceClient, DeviceTransport, expectDeviceError } from '../../helpers/device-transport';
import { aDevice, aGroup } from '../../helpers/devices';
import { startStack, Stack } from '../../helpers/stack';

/** Spec 4.6 rule 2: below this a time is relative to now, in ms; from it up, absolute epoch ms. */
const THRESHOLD = 8_388_608_000;

const items = (count: number) => Array.from({ length: count }, (_, i) => ({ data: { n: i }, ts: -count + i }));

/** Timed writes to a device's shadow in one call (spec 4.6, section 8): the same rules over every transport. */
export function shadowBatchScenarios(transport: DeviceTransport): void {
  describe('a batch of shadow writes', () => {
    let stack: Stack;
    let client: DeviceClient;
    let deviceid: string;
    before(async () => {
      stack = await startStack();
    });
    beforeEach(async () => {
      const device = await aDevice(stack);
      client = transport.clientOf(stack, device);
      deviceid = device.deviceid;
    });
    after(() => stack.stop());

    const shadow = async () => (await client.readShadow()).body;

    describe('the reply', () => {
      it('is {deviceid, response:{ackid, total, applied, mints, maxts}} with resolved times', async () => {
        const before = Date.now();

        const res = await client.writeBatch(
          { ackid: 'ack-7', batch: [{ data: { a: 1 }, ts: -2_000 }, { data: { b: 2 }, ts: -1_000 }] },
          'merge',
        );

        const after = Date.now();
        expect(res.status, res.text).to.equal(200);
        expect(res.body).to.have.all.keys('deviceid', 'response');
        expect(res.body.deviceid).to.equal(deviceid);
        expect(res.body.response).to.have.all.keys('ackid', 'total', 'applied', 'mints', 'maxts');
        expect(res.body.response).to.include({ ackid: 'ack-7', total: 2, applied: 2 });
        expect(res.body.response.mints).to.be.within(before - 2_000, after - 2_000);
        expect(res.body.response.maxts).to.be.within(before - 1_000, after - 1_000);
        expect(await shadow()).to.deep.include({ data: { a: 1, b: 2 }, timestamp: res.body.response.maxts });
      });

      it('leaves ackid out when the request has none, and echoes a numeric one', async () => {
        const without = await client.writeBatch({ batch: [{ data: { a: 1 }, ts: 0 }] }, 'merge');
        const numeric = await client.writeBatch({ ackid: 42, batch: [{ data: { a: 2 }, ts: 0 }] }, 'merge');

        expect(without.body.response).to.not.have.property('ackid');
        expect(numeric.body.response.ackid).to.equal(42);
      });
    });

    describe('item times', () => {
      it('takes ts 0 as now and a positive ts as that far ahead', async () => {
        const before = Date.now();

        const res = await client.writeBatch({ batch: [{ data: { now: true }, ts: 0 }, { data: { later: true }, ts: 60_000 }] }, 'merge');

        const after = Date.now();
        expect(res.body.response.mints).to.be.within(before, after);
        expect(res.body.response.maxts).to.be.within(before + 60_000, after + 60_000);
      });

      it('takes ts from 8388608000 up as absolute and 8388607999 as relative', async () => {
        const absolute = await client.writeBatch({ batch: [{ data: { a: 1 }, ts: THRESHOLD }] }, 'merge');
        const recent = Date.now() - 3_000;
        const later = await client.writeBatch({ batch: [{ data: { a: 2 }, ts: recent }] }, 'merge');
        const relative = await client.writeBatch({ batch: [{ data: { a: 3 }, ts: THRESHOLD - 1 }] }, 'merge');

        expect(absolute.body.response).to.include({ applied: 1, mints: THRESHOLD, maxts: THRESHOLD });
        expect(later.body.response).to.include({ applied: 1, mints: recent, maxts: recent });
        // 8388607999 ms from now is about 97 days ahead: past the 24 hours allowed.
        expect(relative.status).to.equal(400);
        expect(relative.code).to.equal('INVALID_BATCH_ITEM');
      });

      it('accepts "timestamp" as the other name of "ts"', async () => {
        const res = await client.writeBatch({ batch: [{ data: { a: 1 }, timestamp: THRESHOLD + 5 }] }, 'merge');

        expect(res.body.response).to.include({ applied: 1, mints: THRESHOLD + 5 });
      });

      it('applies items in time order whatever their order in the array, ending with the newest values', async () => {
        const res = await client.writeBatch(
          {
            batch: [
              { data: { v: 'newest', only3: true }, ts: -1_000 },
              { data: { v: 'oldest', only1: true }, ts: -3_000 },
              { data: { v: 'middle', only2: true }, ts: -2_000 },
            ],
          },
          'merge',
        );

        expect(res.body.response).to.include({ total: 3, applied: 3 });
        expect((await shadow()).data).to.deep.equal({ v: 'newest', only1: true, only2: true, only3: true });
      });

      it('applies nothing when every item is older than the shadow: applied 0, shadow unchanged', async () => {
        const written = await client.writeShadow({ data: { a: 1 } }, 'merge');

        const res = await client.writeBatch({ batch: [{ data: { a: 2 }, ts: -5_000 }, { data: { b: 2 }, ts: -10_000 }] }, 'merge');

        expect(res.status).to.equal(200);
        expect(res.body.response).to.include({ total: 2, applied: 0 });
        expect(await shadow()).to.deep.include({ data: { a: 1 }, rev: written.body.rev, timestamp: written.body.timestamp });
      });

      it('applies only the items newer than the shadow', async () => {
        await client.writeShadow({ data: { a: 1 }, timestamp: -5_000 }, 'merge');

        const res = await client.writeBatch(
          { batch: [{ data: { old: true }, ts: -9_000 }, { data: { fresh: true }, ts: -1_000 }] },
          'merge',
        );

        expect(res.body.response).to.include({ total: 2, applied: 1 });
        expect((await shadow()).data).to.deep.equal({ a: 1, fresh: true });
      });
    });

    describe('merge (PUT) and overwrite (POST)', () => {
      it('merges with PUT and overwrites with POST', async () => {
        await client.writeShadow({ data: { kept: 1 }, timestamp: -60_000 }, 'merge');

        await client.writeBatch({ batch: [{ data: { a: 1 }, ts: -2_000 }, { data: { b: 2 }, ts: -1_000 }] }, 'merge');
        const merged = await shadow();
        await client.writeBatch({ batch: [{ data: { c: 3 }, ts: 0 }] }, 'overwrite');
        const overwritten = await shadow();

        expect(merged.data).to.deep.equal({ kept: 1, a: 1, b: 2 });
        expect(overwritten.data).to.deep.equal({ c: 3 });
      });

      it('with POST overwrites item by item, so the shadow ends as the newest item', async () => {
        await client.writeShadow({ data: { old: 1 }, timestamp: -10_000 }, 'merge');

        await client.writeBatch(
          { batch: [{ data: { c: 3 }, ts: -1_000 }, { data: { a: 1 }, ts: -3_000 }, { data: { b: 2 }, ts: -2_000 }] },
          'overwrite',
        );

        expect((await shadow()).data).to.deep.equal({ c: 3 });
      });

      it('merges with POST when the body says merged:true', async () => {
        await client.writeShadow({ data: { a: 1, b: 1 }, timestamp: -10_000 }, 'merge');

        await client.writeBatch({ merged: true, batch: [{ data: { a: 2 }, ts: -1_000 }] }, 'overwrite');

        expect((await shadow()).data).to.deep.equal({ a: 2, b: 1 });
      });

      it('overwrites with PUT when the body says merged:false', async () => {
        await client.writeShadow({ data: { a: 1, b: 1 }, timestamp: -10_000 }, 'merge');

        await client.writeBatch({ merged: false, batch: [{ data: { a: 2 }, ts: -1_000 }] }, 'merge');

        expect((await shadow()).data).to.deep.equal({ a: 2 });
      });

      it('lets merged beat the method both ways, batch after batch', async () => {
        await client.writeShadow({ data: { kept: 1 }, timestamp: -60_000 }, 'merge');

        await client.writeBatch({ merged: true, batch: [{ data: { a: 1 }, ts: -2_000 }] }, 'overwrite');
        const mergedByPost = await shadow();
        await client.writeBatch({ merged: false, batch: [{ data: { b: 2 }, ts: -1_000 }] }, 'merge');
        const overwrittenByPut = await shadow();

        expect(mergedByPost.data).to.deep.equal({ kept: 1, a: 1 });
        expect(overwrittenByPut.data).to.deep.equal({ b: 2 });
      });

      it('deletes members set to null, nested ones too', async () => {
        await client.writeShadow({ data: { a: 1, o: { x: 1, y: 1 } }, timestamp: -10_000 }, 'merge');

        await client.writeBatch({ batch: [{ data: { a: null, o: { x: null } }, ts: -1_000 }] }, 'merge');

        expect((await shadow()).data).to.deep.equal({ o: { y: 1 } });
      });
    });

    describe('size and bad items', () => {
      it('accepts 100 items', async () => {
        const batch = Array.from({ length: 100 }, (_, i) => ({ data: { [`k${i}`]: i, last: i }, ts: -100 + i }));

        const res = await client.writeBatch({ batch }, 'merge');

        expect(res.body.response).to.include({ total: 100, applied: 100 });
        const { data } = await shadow();
        expect(Object.keys(data)).to.have.length(101);
        expect(data.last).to.equal(99);
      });

      it('refuses 101 items with 400 BATCH_TOO_LARGE and NETPIE\'s errcode 429 body, saving nothing', async () => {
        const res = await client.writeBatch({ ackid: 1234, batch: items(101) }, 'merge');

        // NETPIE's errcode 429 goes in the body; the status stays 400 (CoAP 4.00), since 429 (4.29) is kept for quotas (issue 5 §5).
        expectDeviceError(res, 400, 'BATCH_TOO_LARGE');
        expect(res.body).to.include({ errcode: 429, message: 'batch size exceeds 100', inputsize: 101, ackid: 1234 });
        expect(await shadow()).to.deep.include({ data: {}, rev: 0 });
      });

      it('answers 400 INVALID_BATCH_ITEM naming the bad item, saving none of the good ones', async () => {
        const res = await client.writeBatch({ batch: [{ data: { a: 1 }, ts: 0 }, { data: 5, ts: 0 }] }, 'merge');

        expectDeviceError(res, 400, 'INVALID_BATCH_ITEM');
        expect(res.body.index).to.equal(1);
        expect(res.body.message).to.match(/^batch item 1: /);
        expect((await shadow()).rev).to.equal(0);
      });

      it('answers 400 for an item without ts and for an empty batch', async () => {
        const withoutTs = await client.writeBatch({ batch: [{ data: { a: 1 } }] }, 'merge');
        const empty = await client.writeBatch({ batch: [] }, 'merge');

        expectDeviceError(withoutTs, 400, 'INVALID_BATCH_ITEM');
        expectDeviceError(empty, 400, 'INVALID_BODY');
      });
    });

    describe('?alias=', () => {
      it('writes the shadow of a device of the same group', async () => {
        const [caller, target] = await aGroup(stack, 2);
        const asCaller = transport.clientOf(stack, caller);
        const asTarget = transport.clientOf(stack, target);

        const res = await asCaller.writeBatch({ batch: [{ data: { via: 'alias' }, ts: 0 }] }, 'merge', target.alias);

        expect(res.body.deviceid).to.equal(target.deviceid);
        expect((await asTarget.readShadow()).body.data).to.deep.equal({ via: 'alias' });
      });
    });
  });
}

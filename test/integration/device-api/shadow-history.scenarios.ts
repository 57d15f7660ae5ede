import { expect } from 'chai';
import { DeviceClient, DeviceTransport, expectDeviceError } from '../../helpers/device-transport';
import { aDevice, aGroup, TestDevice } from '../../helpers/devices';
import { startStack, Stack } from '../../helpers/stack';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The shadow's history (issue 25 §3, docs/device-api.md "Shadow history"): `?at=` and the revisions, on every transport. */
export function shadowHistoryScenarios(transport: DeviceTransport): void {
  describe('the history of a shadow', function () {
    // The retention case waits for revisions to expire (Cassandra's TTL counts whole seconds).
    this.timeout(30_000);
    let stack: Stack;
    before(async () => {
      stack = await startStack();
    });
    after(() => stack.stop());

    /** Writes each body in turn (`merge` or `overwrite`), a few ms apart so each has a server time of its own. */
    async function writeInTurn(client: DeviceClient, writes: [object, 'merge' | 'overwrite'][]) {
      const replies = [];
      for (const [body, mode] of writes) {
        await pause(5);
        const res = await client.writeShadow(body, mode);
        expect(res.status, res.text).to.equal(200);
        replies.push(res.body);
      }
      return replies;
    }

    const shadowOf = ({ deviceid, data, rev, modified, timestamp }: Record<string, unknown>) => ({ deviceid, data, rev, modified, timestamp });

    it('answers ?at= with the shadow as each write left it, every field type, deleted members gone, and empty before the first', async () => {
      const device = await aDevice(stack);
      const client = transport.clientOf(stack, device);
      const written = await writeInTurn(client, [
        [{ data: { name: 'lamp', levels: [1, 2, 3], room: { floor: 2, light: { on: true } }, note: 'x' } }, 'overwrite'],
        [{ data: { levels: ['low'], room: { light: { on: null, level: 0.5 } }, note: null } }, 'merge'],
      ]);
      await pause(5);
      const batch = await client.writeBatch({ batch: [{ data: { name: 'lamp-2' }, ts: -10 }, { data: { extra: [null, { a: 'b' }] }, ts: 0 }] }, 'merge');
      expect(batch.status, batch.text).to.equal(200);
      const current = (await client.readShadow()).body;

      const atFirst = await client.readShadowAt(written[0].modified);
      const justAfterSecond = await client.readShadowAt(written[1].modified + 1);
      const atBatch = await client.readShadowAt(current.modified);
      const before = await client.readShadowAt(written[0].modified - 1);

      expect(atFirst.status, atFirst.text).to.equal(200);
      expect(atFirst.body).to.deep.equal({
        deviceid: device.deviceid, data: { name: 'lamp', levels: [1, 2, 3], room: { floor: 2, light: { on: true } }, note: 'x' },
        rev: 1, modified: written[0].modified, timestamp: written[0].timestamp,
      });
      expect(justAfterSecond.body).to.deep.equal(shadowOf(written[1]));
      expect(justAfterSecond.body.data).to.deep.equal({ name: 'lamp', levels: ['low'], room: { floor: 2, light: { level: 0.5 } } });
      expect(atBatch.body, 'a batch is one revision').to.deep.equal(current);
      expect(current.rev).to.equal(3);
      expect(before.body).to.deep.equal({ deviceid: device.deviceid, data: {}, rev: 0, modified: 0, timestamp: 0 });
    });

    it('keeps one revision per write when concurrent writes are stored together, each with the document it left', async () => {
      const device = await aDevice(stack);
      const client = transport.clientOf(stack, device);

      const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => client.writeShadow({ data: { [`f${i}`]: i } }, 'merge')));
      const list = await client.listRevisions({});

      expect(replies.every((r) => r.status === 200)).to.equal(true);
      const byRev = [...list.body.revisions].reverse();
      expect(byRev.map((r: { rev: number }) => r.rev)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      byRev.forEach((r: { rev: number; data: object }) => expect(Object.keys(r.data)).to.have.length(r.rev));
      for (const reply of replies) {
        expect(byRev[reply.body.rev - 1], `rev ${reply.body.rev}`).to.deep.equal(shadowOf(reply.body));
      }
    });

    it('lists the revisions newest first, in pages that follow each other, within from..to', async () => {
      const device = await aDevice(stack);
      const client = transport.clientOf(stack, device);
      const written = await writeInTurn(client, [1, 2, 3, 4, 5].map((n) => [{ data: { n } }, 'merge'] as [object, 'merge']));

      const first = await client.listRevisions({ limit: 3 });
      const second = await client.listRevisions({ limit: 3, cursor: first.body.next });
      const window = await client.listRevisions({ from: written[1].modified, to: written[3].modified });

      expect(first.status, first.text).to.equal(200);
      expect(first.body.revisions.map((r: { rev: number }) => r.rev)).to.deep.equal([5, 4, 3]);
      expect(first.body.revisions[0]).to.deep.equal(shadowOf(written[4]));
      expect(second.body.revisions.map((r: { rev: number }) => r.rev)).to.deep.equal([2, 1]);
      expect(second.body).to.not.have.property('next');
      expect(window.body.revisions.map((r: { data: unknown }) => r.data)).to.deep.equal([{ n: 4 }, { n: 3 }, { n: 2 }]);
    });

    it('reads the history of another device of the group by alias, and refuses one of another group', async () => {
      const [reader, lamp] = await aGroup(stack, 2);
      const stranger: TestDevice = await aDevice(stack, { projectid: lamp.projectid });
      const written = await writeInTurn(transport.clientOf(stack, lamp), [[{ data: { on: true } }, 'merge'], [{ data: { on: false } }, 'merge']]);
      const client = transport.clientOf(stack, reader);

      const at = await client.readShadowAt(written[0].modified, lamp.alias);
      const list = await client.listRevisions({}, lamp.alias);
      const refusedAt = await transport.clientOf(stack, stranger).readShadowAt(written[0].modified, lamp.alias);
      const refusedList = await transport.clientOf(stack, stranger).listRevisions({}, lamp.alias);

      expect(at.body).to.deep.equal(shadowOf(written[0]));
      expect(list.body.deviceid).to.equal(lamp.deviceid);
      expect(list.body.revisions.map((r: { rev: number }) => r.rev)).to.deep.equal([2, 1]);
      expectDeviceError(refusedAt, 403, 'OTHER_GROUP');
      expectDeviceError(refusedList, 403, 'OTHER_GROUP');
    });

    it('keeps no revision of a conditional write that is refused', async () => {
      const device = await aDevice(stack);
      const client = transport.clientOf(stack, device);
      await writeInTurn(client, [[{ data: { a: 1 } }, 'merge']]);

      const refused = await client.writeShadow({ data: { a: 2 }, rev: 7 }, 'merge');
      const list = await client.listRevisions({});

      expectDeviceError(refused, 412, 'REV_MISMATCH');
      expect(list.body.revisions.map((r: { data: unknown }) => r.data)).to.deep.equal([{ a: 1 }]);
    });

    it('refuses a malformed time, limit or cursor with INVALID_QUERY', async () => {
      const client = transport.clientOf(stack, await aDevice(stack));

      const replies = [
        await client.readShadowAt('yesterday'),
        await client.listRevisions({ limit: 0 }),
        await client.listRevisions({ limit: 101 }),
        await client.listRevisions({ cursor: 'abc' }),
      ];

      for (const reply of replies) expectDeviceError(reply, 400, 'INVALID_QUERY');
    });

    describe('under a retention of 1.5 s (POINT_RETENTION)', () => {
      let short: Stack;
      before(async () => {
        short = await startStack({ env: { POINT_RETENTION: '1500' } });
      });
      after(() => short.stop());

      it('stops answering revisions once expired: REVISION_NOT_KEPT before the oldest kept, the current shadow still read', async () => {
        const client = transport.clientOf(short, await aDevice(short));
        const old = await writeInTurn(client, [[{ data: { v: 1 } }, 'merge'], [{ data: { v: 2 } }, 'merge']]);
        await pause(2600);
        const [latest] = await writeInTurn(client, [[{ data: { v: 3 } }, 'merge']]);

        const list = await client.listRevisions({});
        const expired = await client.readShadowAt(old[1].modified);
        const now = await client.readShadowAt(latest.modified);

        expect(list.body.revisions.map((r: { rev: number }) => r.rev)).to.deep.equal([3]);
        expectDeviceError(expired, 404, 'REVISION_NOT_KEPT');
        expect(now.body).to.deep.equal(shadowOf(latest));
      });
    });
  });
}

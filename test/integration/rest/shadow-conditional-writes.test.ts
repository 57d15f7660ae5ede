import { expect } from 'chai';
import { aDevice, aGroup, TestDevice } from '../../helpers/devices';
import { HttpClient } from '../../helpers/http';
import { asDevice, expectError } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

/** Points the device recorded of `field`, counted by the data-store API. */
async function pointsOf(stack: Stack, device: TestDevice, field: string): Promise<number> {
  const res = await stack.http('POST', '/v2/feed/api/v1/datapoints/query', {
    headers: { authorization: device.auth },
    body: { start_absolute: 1, end_absolute: Date.now() + 60_000, metrics: [{ name: device.deviceid, tags: { attr: [field] } }] },
  });
  expect(res.status, res.text).to.equal(200);
  return res.body.queries[0].sample_size;
}

/** Issue 25 §1: the shadow's rev as ETag, and writes that apply only if the shadow is at the rev they expect. */
describe('conditional shadow writes over REST (ETag, If-Match, If-None-Match)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  /** A device whose shadow is at rev 2, with `temp` recorded twice. */
  async function writtenTwice(): Promise<{ device: TestDevice; client: HttpClient }> {
    const device = await aDevice(stack);
    const client = asDevice(stack, device);
    for (const temp of [20, 21]) {
      const res = await client('PUT', '/v2/device/shadow/data', { body: { data: { temp } } });
      expect(res.status, res.text).to.equal(200);
    }
    return { device, client };
  }

  describe('ETag', () => {
    it('is "0" on a shadow never written, on both prefixes', async () => {
      const client = asDevice(stack, await aDevice(stack));
      for (const prefix of ['/v2/device', '/device']) {
        const res = await client('GET', `${prefix}/shadow/data`);
        expect(res.status, res.text).to.equal(200);
        expect(res.headers.get('etag')).to.equal('"0"');
      }
    });

    it('is the rev of the shadow read, and of the shadow a write leaves', async () => {
      const { client } = await writtenTwice();
      expect((await client('GET', '/v2/device/shadow/data')).headers.get('etag')).to.equal('"2"');
      const written = await client('POST', '/v2/device/shadow/data', { body: { data: { temp: 1 } } });
      expect(written.headers.get('etag')).to.equal('"3"');
      const batch = await client('PUT', '/v2/device/shadow/batch', { body: { batch: [{ data: { temp: 2 }, ts: 0 }] } });
      expect(batch.status, batch.text).to.equal(200);
      expect(batch.body).to.not.have.property('rev');
      expect(batch.headers.get('etag')).to.equal('"4"');
    });

    it('is on the admin shadow read', async () => {
      const { device } = await writtenTwice();
      const res = await stack.admin('GET', `/v2/admin/devices/${device.deviceid}/shadow`);
      expect(res.status, res.text).to.equal(200);
      expect(res.headers.get('etag')).to.equal('"2"');
    });
  });

  describe('conditional reads (RFC 9110 §13.1.2)', () => {
    it('answers 304 without a body when If-None-Match names the revision the read would answer, weakly or as *', async () => {
      const { device, client } = await writtenTwice();
      for (const tag of ['"2"', 'W/"2"', '"1", "2"', '*']) {
        const res = await client('GET', '/v2/device/shadow/data', { headers: { 'if-none-match': tag } });
        expect([res.status, res.text, res.headers.get('etag')], tag).to.deep.equal([304, '', '"2"']);
      }
      const admin = await stack.admin('GET', `/v2/admin/devices/${device.deviceid}/shadow`, { headers: { 'if-none-match': '"2"' } });
      expect([admin.status, admin.text]).to.deep.equal([304, '']);
    });

    it('answers the shadow when it changed since the tag the client holds, or the tag is not one of ours', async () => {
      const { client } = await writtenTwice();
      for (const tag of ['"1"', '"abc"']) {
        const res = await client('GET', '/v2/device/shadow/data', { headers: { 'if-none-match': tag } });
        expect([res.status, res.body.data, res.headers.get('etag')], tag).to.deep.equal([200, { temp: 21 }, '"2"']);
      }
    });

    it('compares with the revision ?at= reads, not the current one', async () => {
      const { client } = await writtenTwice();
      const first = await client('GET', '/v2/device/shadow/revisions');
      const at = first.body.revisions.find((r: { rev: number }) => r.rev === 1).modified;

      const old = await client('GET', `/v2/device/shadow/data?at=${at}`, { headers: { 'if-none-match': '"1"' } });
      const current = await client('GET', `/v2/device/shadow/data?at=${at}`, { headers: { 'if-none-match': '"2"' } });

      expect([old.status, current.status, current.headers.get('etag')]).to.deep.equal([304, 200, '"1"']);
    });

    it('refuses an If-None-Match that is not * or a list of entity tags: 400 INVALID_CONDITION', async () => {
      const { client } = await writtenTwice();
      expectError(await client('GET', '/v2/device/shadow/data', { headers: { 'if-none-match': '2' } }), 400, 'INVALID_CONDITION');
    });
  });

  describe('If-Match', () => {
    it('applies a write whose If-Match names the current rev', async () => {
      const { client } = await writtenTwice();
      const res = await client('PUT', '/v2/device/shadow/data', { headers: { 'if-match': '"2"' }, body: { data: { temp: 30 } } });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.include({ rev: 3, applied: true });
      expect(res.headers.get('etag')).to.equal('"3"');
    });

    it('refuses a stale one with 412 REV_MISMATCH and the current rev, applying nothing: no change, no point', async () => {
      const { device, client } = await writtenTwice();
      const res = await client('PUT', '/v2/device/shadow/data', { headers: { 'if-match': '"1"' }, body: { data: { temp: 99, other: 1 } } });
      expectError(res, 412, 'REV_MISMATCH');
      expect(res.body.rev).to.equal(2);
      const shadow = (await client('GET', '/v2/device/shadow/data')).body;
      expect(shadow).to.include({ rev: 2 });
      expect(shadow.data).to.deep.equal({ temp: 21 });
      expect(await pointsOf(stack, device, 'temp')).to.equal(2);
      expect(await pointsOf(stack, device, 'other')).to.equal(0);
    });

    it('takes a list: any tag naming the current rev matches; weak tags never do (strong comparison)', async () => {
      const { client } = await writtenTwice();
      const weak = await client('PUT', '/v2/device/shadow/data', { headers: { 'if-match': 'W/"2"' }, body: { data: { a: 1 } } });
      expectError(weak, 412, 'REV_MISMATCH');
      const other = await client('PUT', '/v2/device/shadow/data', { headers: { 'if-match': '"abc", "7"' }, body: { data: { a: 1 } } });
      expectError(other, 412, 'REV_MISMATCH');
      const listed = await client('PUT', '/v2/device/shadow/data', { headers: { 'if-match': '"1", "2"' }, body: { data: { a: 1 } } });
      expect(listed.status, listed.text).to.equal(200);
    });

    it('* applies to a shadow written at least once, and refuses one never written', async () => {
      const never = asDevice(stack, await aDevice(stack));
      expectError(await never('PUT', '/v2/device/shadow/data', { headers: { 'if-match': '*' }, body: { data: { a: 1 } } }), 412, 'REV_MISMATCH');
      const { client } = await writtenTwice();
      expect((await client('PUT', '/v2/device/shadow/data', { headers: { 'if-match': '*' }, body: { data: { a: 1 } } })).status).to.equal(200);
    });

    it('conditions a batch on the shadow before it', async () => {
      const { client } = await writtenTwice();
      const now = Date.now();
      const body = { batch: [{ data: { temp: 1 }, ts: now + 1 }, { data: { temp: 2 }, ts: now + 2 }] };
      const stale = await client('PUT', '/v2/device/shadow/batch', { headers: { 'if-match': '"1"' }, body });
      expectError(stale, 412, 'REV_MISMATCH');
      expect(stale.body.rev).to.equal(2);
      const fresh = await client('PUT', '/v2/device/shadow/batch', { headers: { 'if-match': '"2"' }, body });
      expect(fresh.status, fresh.text).to.equal(200);
      expect(fresh.body.response).to.include({ applied: 2 });
      expect(fresh.headers.get('etag')).to.equal('"3"');
    });

    it('conditions a write to another device of the group (?alias=) on that device\'s rev', async () => {
      const [writer, target] = await aGroup(stack, 2);
      const client = asDevice(stack, writer);
      await asDevice(stack, target)('PUT', '/v2/device/shadow/data', { body: { data: { x: 1 } } });
      const path = `/v2/device/shadow/data?alias=${target.alias}`;
      expectError(await client('PUT', path, { headers: { 'if-match': '"0"' }, body: { data: { x: 2 } } }), 412, 'REV_MISMATCH');
      expect((await client('PUT', path, { headers: { 'if-match': '"1"' }, body: { data: { x: 2 } } })).status).to.equal(200);
    });

    it('holds on the admin shadow write', async () => {
      const { device } = await writtenTwice();
      const path = `/v2/admin/devices/${device.deviceid}/shadow`;
      expectError(await stack.admin('PUT', path, { headers: { 'if-match': '"9"' }, body: { data: { a: 1 } } }), 412, 'REV_MISMATCH');
      const ok = await stack.admin('PUT', path, { headers: { 'if-match': '"2"' }, body: { data: { a: 1 } } });
      expect(ok.status, ok.text).to.equal(200);
      expect(ok.headers.get('etag')).to.equal('"3"');
    });

    it('refuses a header that is no entity-tag list with 400 INVALID_CONDITION', async () => {
      const { client } = await writtenTwice();
      for (const value of ['2', '"2" "3"', 'W/2', ',']) {
        const res = await client('PUT', '/v2/device/shadow/data', { headers: { 'if-match': value }, body: { data: { a: 1 } } });
        expectError(res, 400, 'INVALID_CONDITION');
      }
    });
  });

  describe('If-None-Match', () => {
    it('* writes only a shadow never written', async () => {
      const client = asDevice(stack, await aDevice(stack));
      const first = await client('POST', '/v2/device/shadow/data', { headers: { 'if-none-match': '*' }, body: { data: { setup: true } } });
      expect(first.status, first.text).to.equal(200);
      expect(first.body.rev).to.equal(1);
      const second = await client('POST', '/v2/device/shadow/data', { headers: { 'if-none-match': '*' }, body: { data: { setup: false } } });
      expectError(second, 412, 'REV_MISMATCH');
      expect(second.body.rev).to.equal(1);
      expect((await client('GET', '/v2/device/shadow/data')).body.data).to.deep.equal({ setup: true });
    });

    it('with a list refuses the revs it names (weak comparison)', async () => {
      const { client } = await writtenTwice();
      expectError(await client('PUT', '/v2/device/shadow/data', { headers: { 'if-none-match': 'W/"2"' }, body: { data: { a: 1 } } }), 412, 'REV_MISMATCH');
      expect((await client('PUT', '/v2/device/shadow/data', { headers: { 'if-none-match': '"1"' }, body: { data: { a: 1 } } })).status).to.equal(200);
    });
  });

  describe('`rev` in the body', () => {
    it('conditions a write as If-Match does, and 0 means a shadow never written', async () => {
      const { client } = await writtenTwice();
      expectError(await client('PUT', '/v2/device/shadow/data', { body: { data: { a: 1 }, rev: 0 } }), 412, 'REV_MISMATCH');
      const res = await client('PUT', '/v2/device/shadow/data', { body: { data: { a: 1 }, rev: 2 } });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.rev).to.equal(3);
    });

    it('must hold together with If-Match', async () => {
      const { client } = await writtenTwice();
      const res = await client('PUT', '/v2/device/shadow/data', { headers: { 'if-match': '"2"' }, body: { data: { a: 1 }, rev: 1 } });
      expectError(res, 412, 'REV_MISMATCH');
    });

    it('is a whole number from 0 up', async () => {
      const { client } = await writtenTwice();
      for (const rev of [-1, 1.5, '2', null]) {
        expectError(await client('PUT', '/v2/device/shadow/data', { body: { data: { a: 1 }, rev } }), 400, 'INVALID_BODY');
      }
    });
  });

  it('lets exactly one of 20 concurrent writers expecting the same rev through', async () => {
    const { client } = await writtenTwice();
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => client('PUT', '/v2/device/shadow/data', { headers: { 'if-match': '"2"' }, body: { data: { who: i } } })),
    );
    expect(replies.filter((r) => r.status === 200)).to.have.length(1);
    replies.filter((r) => r.status !== 200).forEach((r) => {
      expectError(r, 412, 'REV_MISMATCH');
      expect(r.body.rev).to.equal(3);
    });
    expect((await client('GET', '/v2/device/shadow/data')).body.rev).to.equal(3);
  });
});

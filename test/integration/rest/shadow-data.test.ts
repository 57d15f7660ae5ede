import { expect } from 'chai';
import { aDevice } from '../../helpers/devices';
import { HttpClient } from '../../helpers/http';
import { asDevice } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

describe('the shadow of a device (/v2/device/shadow/data)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  /** A fresh device whose shadow already holds `data`, written with POST. */
  async function deviceWithShadow(data: object): Promise<{ client: HttpClient; deviceid: string }> {
    const device = await aDevice(stack);
    const client = asDevice(stack, device);
    const res = await client('POST', '/v2/device/shadow/data', { body: { data } });
    expect(res.status, res.text).to.equal(200);
    return { client, deviceid: device.deviceid };
  }

  describe('GET /v2/device/shadow/data', () => {
    it('returns an empty shadow at rev 0 for a device that never wrote one', async () => {
      const device = await aDevice(stack);

      const res = await asDevice(stack, device)('GET', '/v2/device/shadow/data');

      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ status: 200, deviceid: device.deviceid, data: {}, rev: 0, modified: 0, timestamp: 0 });
    });

    it('returns what the last write left, with the same rev, modified and timestamp', async () => {
      const { client, deviceid } = await deviceWithShadow({ temp: 21.5, tags: ['a', 'b'] });
      const written = await client('PUT', '/v2/device/shadow/data', { body: { data: { hum: 40 } } });

      const res = await client('GET', '/v2/device/shadow/data');

      expect(res.body).to.deep.equal({
        status: 200,
        deviceid,
        data: { temp: 21.5, tags: ['a', 'b'], hum: 40 },
        rev: written.body.rev,
        modified: written.body.modified,
        timestamp: written.body.timestamp,
      });
    });
  });

  describe('PUT /v2/device/shadow/data', () => {
    it('merges nested objects and deletes keys set to null', async () => {
      const { client } = await deviceWithShadow({ room: { temp: 20, hum: 40, lamp: { on: true } }, gone: 1, kept: 'x' });

      const res = await client('PUT', '/v2/device/shadow/data', {
        body: { data: { room: { temp: 22, lamp: { on: null, level: 3 } }, gone: null, added: { deep: { v: 1 } } } },
      });

      expect(res.status).to.equal(200);
      expect(res.body.data).to.deep.equal({ room: { temp: 22, hum: 40, lamp: { level: 3 } }, kept: 'x', added: { deep: { v: 1 } } });
      expect((await client('GET', '/v2/device/shadow/data')).body.data).to.deep.equal(res.body.data);
    });

    it('replaces arrays and scalars whole, and an object by a scalar or the other way round', async () => {
      const { client } = await deviceWithShadow({ list: [1, 2, 3], n: 1, s: 'a', obj: { a: 1 }, scalar: 5 });

      const res = await client('PUT', '/v2/device/shadow/data', {
        body: { data: { list: [9], n: 'now a string', s: false, obj: 7, scalar: { now: 'object' } } },
      });

      expect(res.body.data).to.deep.equal({ list: [9], n: 'now a string', s: false, obj: 7, scalar: { now: 'object' } });
    });

    it('overwrites the whole document when the body says merged:false', async () => {
      const { client } = await deviceWithShadow({ a: 1, b: { c: 2 } });

      const res = await client('PUT', '/v2/device/shadow/data', { body: { data: { b: { d: 3 } }, merged: false } });

      expect(res.body.data).to.deep.equal({ b: { d: 3 } });
    });
  });

  describe('POST /v2/device/shadow/data', () => {
    it('replaces the whole document', async () => {
      const { client } = await deviceWithShadow({ a: 1, b: { c: 2 } });

      const res = await client('POST', '/v2/device/shadow/data', { body: { data: { b: { d: 3 } } } });

      expect(res.status).to.equal(200);
      expect(res.body.data).to.deep.equal({ b: { d: 3 } });
      expect((await client('GET', '/v2/device/shadow/data')).body.data).to.deep.equal({ b: { d: 3 } });
    });

    it('leaves out members set to null', async () => {
      const { client } = await deviceWithShadow({ a: 1 });

      const res = await client('POST', '/v2/device/shadow/data', { body: { data: { a: null, b: 2, c: { d: null, e: 1 } } } });

      expect(res.body.data).to.deep.equal({ b: 2, c: { e: 1 } });
    });

    it('merges when the body says merged:true', async () => {
      const { client } = await deviceWithShadow({ a: 1, b: { c: 2 } });

      const res = await client('POST', '/v2/device/shadow/data', { body: { data: { b: { d: 3 } }, merged: true } });

      expect(res.body.data).to.deep.equal({ a: 1, b: { c: 2, d: 3 } });
    });
  });

  describe('the reply to a write', () => {
    it('is {status, deviceid, data, rev, modified, timestamp, applied} with the whole shadow in data', async () => {
      const { client, deviceid } = await deviceWithShadow({ a: 1 });
      const before = Date.now();

      const res = await client('PUT', '/v2/device/shadow/data', { body: { data: { b: 2 } } });

      const after = Date.now();
      expect(res.body).to.have.all.keys('status', 'deviceid', 'data', 'rev', 'modified', 'timestamp', 'applied');
      expect(res.body).to.include({ status: 200, deviceid, applied: true });
      expect(res.body.data).to.deep.equal({ a: 1, b: 2 });
      expect(res.body.modified).to.be.within(before, after);
      expect(res.body.timestamp).to.be.within(before, after);
    });

    it('counts rev up by one for every applied write, PUT or POST', async () => {
      const device = await aDevice(stack);
      const client = asDevice(stack, device);

      const revs: number[] = [];
      for (const method of ['PUT', 'POST', 'PUT', 'PUT', 'POST']) {
        revs.push((await client(method, '/v2/device/shadow/data', { body: { data: { n: revs.length } } })).body.rev);
      }

      expect(revs).to.deep.equal([1, 2, 3, 4, 5]);
      expect((await client('GET', '/v2/device/shadow/data')).body.rev).to.equal(5);
    });

  });
});

import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { aDevice, TestDevice } from '../../helpers/devices';
import { BATCH, BATCH_RESPONSE, pointsOf, shadowSession, UPDATE, UPDATED } from '../../helpers/mqtt-shadow';
import { asDevice, expectError } from '../../helpers/rest-device';
import { Stack, startStack } from '../../helpers/stack';

const TEMP = { path: 'env.temp', type: 'number', attr: 'temp', ttl: '30d' };
const DOOR = { path: 'door', type: 'boolean', attr: 'door', ttl: '30d' };

/** What the data store answers of each attr a device recorded (its tag values), sorted. */
async function attrsOf(stack: Stack, device: TestDevice): Promise<string[]> {
  const res = await stack.http('POST', '/v2/feed/api/v1/datapoints/query/tags', {
    headers: { authorization: device.auth },
    body: { start_relative: { value: 2, unit: 'days' }, metrics: [{ name: device.deviceid }] },
  });
  expect(res.status, res.text).to.equal(200);
  return [...(res.body.queries[0].results[0]?.tags?.attr ?? [])].sort();
}

/** Recording with datatags (issue 23 §1) and with NETPIE's schema `store.ttl` (§2), over REST and MQTT writes. */
describe('what shadow writes record, with datatags or a schema with store.ttl', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  async function withTags(tags: unknown[], device?: TestDevice): Promise<TestDevice> {
    const target = device ?? (await aDevice(stack));
    const res = await stack.admin('PUT', `/v2/admin/devices/${target.deviceid}/datatags`, { body: tags });
    expect(res.status, res.text).to.equal(200);
    return target;
  }
  const write = (device: TestDevice, data: object, more: object = {}) =>
    asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data, ...more } });

  describe('a device with datatags', () => {
    it('records exactly its enabled tags, cast to the tag type, under the tag\'s attr; the shadow keeps everything', async () => {
      const device = await withTags([TEMP, DOOR]);

      const res = await write(device, { env: { temp: '21.5', humid: 40 }, door: 'true', other: 7 });

      expect(res.status, res.text).to.equal(200);
      expect(res.body.data).to.deep.equal({ env: { temp: '21.5', humid: 40 }, door: 'true', other: 7 });
      expect(res.body).to.not.have.property('warnings');
      expect(await attrsOf(stack, device)).to.deep.equal(['door', 'temp']);
      expect((await pointsOf(stack, device, 'temp')).map(([, v]) => v)).to.deep.equal([21.5]);
      expect((await pointsOf(stack, device, 'door')).map(([, v]) => v)).to.deep.equal([1]);
    });

    it('records a tag only when the write holds its path', async () => {
      const device = await withTags([TEMP, DOOR]);

      await write(device, { door: false });
      await write(device, { env: { humid: 3 } });

      expect(await attrsOf(stack, device)).to.deep.equal(['door']);
      expect((await pointsOf(stack, device, 'door')).map(([, v]) => v)).to.deep.equal([0]);
    });

    it('skips a value it cannot cast and says so in the reply as "unrecorded"', async () => {
      const device = await withTags([TEMP]);

      const res = await write(device, { env: { temp: '14 June 2023' } });

      expect(res.status, res.text).to.equal(200);
      expect(res.body.data).to.deep.equal({ env: { temp: '14 June 2023' } });
      expect(res.body.warnings).to.deep.equal([{
        field: 'env.temp', action: 'unrecorded', reason: 'type', message: 'datatag "temp": "14 June 2023" (string) cannot be read as a number',
      }]);
      expect(await pointsOf(stack, device, 'temp')).to.deep.equal([]);
    });

    it('records the value after the schema\'s transforms, through the tag\'s expression over $.value', async () => {
      const device = await withTags([{ path: 'tempF', type: 'number', attr: 'tempK', ttl: '1y', expression: '($.value - 32) / 1.8 + 273.15' }]);
      await stack.admin('PUT', `/v2/admin/devices/${device.deviceid}/schema`, {
        body: { properties: { tempC: { type: 'number' }, tempF: { type: 'number', autofill: true, operation: { transform: { expression: '$.tempC * 1.8 + 32' } } } } },
      });

      await write(device, { tempC: 100 });

      expect(await attrsOf(stack, device)).to.deep.equal(['tempK']);
      expect((await pointsOf(stack, device, 'tempK')).map(([, v]) => v)).to.deep.equal([373.15]);
    });

    it('records nothing for a disabled tag, and again once it is enabled', async () => {
      const device = await withTags([TEMP]);
      await stack.admin('PATCH', `/v2/admin/devices/${device.deviceid}/datatags/temp`, { body: { enabled: false } });

      await write(device, { env: { temp: 1 } }, { timestamp: -2000 });
      expect(await attrsOf(stack, device)).to.deep.equal([]);

      await stack.admin('PATCH', `/v2/admin/devices/${device.deviceid}/datatags/temp`, { body: { enabled: true } });
      await write(device, { env: { temp: 2 } });
      expect((await pointsOf(stack, device, 'temp')).map(([, v]) => v)).to.deep.equal([2]);
    });

    it('follows its group\'s default when it has no tags of its own; its own tags beat it', async () => {
      const projectid = `p-${randomUUID().slice(0, 8)}`;
      const [plain, own] = [await aDevice(stack, { projectid, groupid: 'g' }), await aDevice(stack, { projectid, groupid: 'g' })];
      await stack.admin('PUT', `/v2/admin/projects/${projectid}/groups/g/datatags`, { body: [DOOR] });
      await withTags([TEMP], own);

      await write(plain, { door: 1, env: { temp: 5 } });
      await write(own, { door: 1, env: { temp: 5 } });

      expect(await attrsOf(stack, plain)).to.deep.equal(['door']);
      expect(await attrsOf(stack, own)).to.deep.equal(['temp']);
    });

    it('records, casts and warns the same over MQTT, single writes and batches', async () => {
      const device = await withTags([TEMP]);
      const session = await shadowSession(stack, device);
      try {
        const single = await session.ask(UPDATE, { data: { env: { temp: 'warm' } } }, UPDATED);
        const now = Date.now();
        const batch = await session.ask(BATCH, { batch: [{ ts: now - 2000, data: { env: { temp: '3' } } }, { ts: now - 1000, data: { env: { temp: [1] } } }] }, BATCH_RESPONSE);

        expect(single.body.warnings).to.deep.equal([{ field: 'env.temp', action: 'unrecorded', reason: 'type', message: 'datatag "temp": "warm" (string) cannot be read as a number' }]);
        expect(batch.body.warnings).to.deep.equal([{ index: 1, field: 'env.temp', action: 'unrecorded', reason: 'type', message: 'datatag "temp": [1] (array) cannot be read as a number' }]);
        expect((await pointsOf(stack, device, 'temp')).map(([, v]) => v)).to.deep.equal([3]);
      } finally {
        await session.end();
      }
    });

    it('goes back to today\'s rule (every numeric field) once its last tag is deleted', async () => {
      const device = await withTags([TEMP]);
      await stack.admin('DELETE', `/v2/admin/devices/${device.deviceid}/datatags/temp`);

      await write(device, { env: { temp: 4 }, n: 1 });

      expect(await attrsOf(stack, device)).to.deep.equal(['env.temp', 'n']);
    });
  });

  describe('feeds and points of a datatag', () => {
    const base = `/v2/admin/devices`;

    it('clear feed deletes the tag\'s points and keeps the tag; delete feed deletes both', async () => {
      const device = await withTags([TEMP, DOOR]);
      await write(device, { env: { temp: 1 }, door: true });

      expect((await stack.admin('POST', `${base}/${device.deviceid}/datatags/temp/clear`)).status).to.equal(204);
      expect(await attrsOf(stack, device)).to.deep.equal(['door']);
      expect((await stack.admin('GET', `${base}/${device.deviceid}/datatags`)).body).to.have.length(2);

      expect((await stack.admin('DELETE', `${base}/${device.deviceid}/datatags/door`)).status).to.equal(204);
      expect(await attrsOf(stack, device)).to.deep.equal([]);
      expect((await stack.admin('GET', `${base}/${device.deviceid}/datatags`)).body.map((t: { attr: string }) => t.attr)).to.deep.equal(['temp']);
    });

    it('edits one point (cast to the tag type) and deletes another', async () => {
      const device = await withTags([TEMP]);
      const now = Date.now();
      await write(device, { env: { temp: 1 } }, { timestamp: now - 2000 });
      await write(device, { env: { temp: 2 } }, { timestamp: now - 1000 });

      const edit = await stack.admin('PUT', `${base}/${device.deviceid}/datatags/temp/points/${now - 2000}`, { body: { value: '10.5' } });
      const removed = await stack.admin('DELETE', `${base}/${device.deviceid}/datatags/temp/points/${now - 1000}`);

      expect(edit.status, edit.text).to.equal(200);
      expect(edit.body).to.deep.include({ metric: device.deviceid, tags: { attr: 'temp' }, timestamp: now - 2000, value: 10.5 });
      expect(removed.status).to.equal(204);
      expect(await pointsOf(stack, device, 'temp')).to.deep.equal([[now - 2000, 10.5]]);
    });

    it('refuses a point it cannot cast, a bad timestamp and an attr the device has not', async () => {
      const device = await withTags([TEMP]);

      expectError(await stack.admin('PUT', `${base}/${device.deviceid}/datatags/temp/points/1000`, { body: { value: 'hot' } }), 400, 'INVALID_BODY');
      expectError(await stack.admin('PUT', `${base}/${device.deviceid}/datatags/temp/points/soon`, { body: { value: 1 } }), 400, 'INVALID_QUERY');
      expectError(await stack.admin('PUT', `${base}/${device.deviceid}/datatags/temp/points/${Date.now() + 2 * 86_400_000}`, { body: { value: 1 } }), 400, 'INVALID_QUERY');
      expectError(await stack.admin('POST', `${base}/${device.deviceid}/datatags/nope/clear`), 404, 'DATATAG_NOT_FOUND');
      expectError(await stack.admin('DELETE', `${base}/${randomUUID()}/datatags/temp/points/1000`), 404, 'DEVICE_NOT_FOUND');
    });
  });

  describe('a schema with NETPIE\'s operation.store.ttl', () => {
    const SCHEMA = {
      properties: {
        temp: { type: 'number', operation: { store: { ttl: '30d' } } },
        brief: { type: 'number', operation: { store: { ttl: 1000 } } },
        humid: { type: 'number' },
      },
    };

    it('loads as sent and records exactly the fields that carry a ttl, each expiring after it', async () => {
      const device = await aDevice(stack);
      const put = await stack.admin('PUT', `/v2/admin/devices/${device.deviceid}/schema`, { body: SCHEMA });
      expect(put.status, put.text).to.equal(200);
      expect((await stack.admin('GET', `/v2/admin/devices/${device.deviceid}/schema`)).body).to.deep.equal(SCHEMA);

      // Written 5 s ago: `brief` (kept 1 s) has expired already, `temp` (30 days) has not.
      await write(device, { temp: 20, brief: 1, humid: 50 }, { timestamp: -5000 });
      await write(device, { brief: 2, humid: 51 });

      expect(await pointsOf(stack, device, 'temp')).to.have.length(1);
      expect((await pointsOf(stack, device, 'brief')).map(([, v]) => v)).to.deep.equal([2]);
      expect(await pointsOf(stack, device, 'humid')).to.deep.equal([]);
    });

    it('refuses a bad ttl, naming the field, and store:false beside a ttl', async () => {
      const device = await aDevice(stack);

      const bad = await stack.admin('PUT', `/v2/admin/devices/${device.deviceid}/schema`, { body: { properties: { temp: { operation: { store: { ttl: '30x' } } } } } });
      const both = await stack.admin('PUT', `/v2/admin/devices/${device.deviceid}/schema`, { body: { properties: { temp: { store: false, operation: { store: { ttl: '1d' } } } } } });

      expectError(bad, 400, 'INVALID_BODY');
      expect(bad.body.message).to.match(/^properties\.temp\.operation\.store\.ttl: must be a whole number/);
      expectError(both, 400, 'INVALID_BODY');
      expect(both.body.message).to.contain('contradict');
    });
  });
});

import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { aDevice } from '../../helpers/devices';
import { httpClient } from '../../helpers/http';
import { expectError } from '../../helpers/rest-device';
import { Stack, startStack } from '../../helpers/stack';

const TEMP = { path: 'env.temp', type: 'number', attr: 'temp', ttl: '30d', unit: 'C', expression: '$.value * 1.8 + 32' };
const DOOR = { path: 'door', type: 'boolean', attr: 'door', ttl: 60000 };

/** The admin API of datatags (issue 23 §1), on the store TEST_STORE names (SQLite, or Cassandra). */
describe('/v2/admin/.../datatags', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  const tagsOf = (deviceid: string) => `/v2/admin/devices/${deviceid}/datatags`;

  describe('PUT and GET /v2/admin/devices/{deviceid}/datatags', () => {
    it('stores the list with its defaults filled in (name = the path, enabled) and answers it ordered by attr', async () => {
      const device = await aDevice(stack);

      const put = await stack.admin('PUT', tagsOf(device.deviceid), { body: [TEMP, DOOR] });
      const get = await stack.admin('GET', tagsOf(device.deviceid));

      const expected = [{ ...DOOR, name: 'door', enabled: true }, { ...TEMP, name: 'env.temp', enabled: true }];
      expect(put.status, put.text).to.equal(200);
      expect(put.body).to.deep.equal(expected);
      expect(get.body).to.deep.equal(expected);
    });

    it('answers an empty list for a device without datatags, and 404 for a device that does not exist', async () => {
      const device = await aDevice(stack);

      expect((await stack.admin('GET', tagsOf(device.deviceid))).body).to.deep.equal([]);
      expectError(await stack.admin('GET', tagsOf(randomUUID())), 404, 'DEVICE_NOT_FOUND');
      expectError(await stack.admin('PUT', tagsOf(randomUUID()), { body: [TEMP] }), 404, 'DEVICE_NOT_FOUND');
    });

    it('refuses a whole list with a string tag, a bad ttl, a repeated attr or an expression reading more than $.value', async () => {
      const device = await aDevice(stack);
      await stack.admin('PUT', tagsOf(device.deviceid), { body: [TEMP] });
      const refusals: [unknown, RegExp][] = [
        [[{ ...TEMP, type: 'string' }], /0\.type: a "string" tag cannot be recorded/],
        [[{ ...TEMP, ttl: '30 days' }], /0\.ttl: must be a whole number/],
        [[{ ...TEMP, ttl: 0 }], /0\.ttl: must be at least 1 ms/],
        [[TEMP, { ...DOOR, attr: 'temp' }], /attr "temp" is given twice/],
        [[{ ...TEMP, expression: '$.other + 1' }], /may read only \$\.value/],
        [[{ ...TEMP, expression: '$$.value' }], /unknown variable \$\$/],
        [[{ ...TEMP, attr: 'a b' }], /0\.attr: expected 1-128 characters/],
        [[{ ...TEMP, path: 'env..temp' }], /0\.path: expected 1-128 characters/],
        [[{ ...TEMP, colour: 'red' }], /unknown member "colour"/],
        [Array.from({ length: 101 }, (_, i) => ({ ...TEMP, attr: `t${i}` })), /more than 100 datatags/],
      ];
      for (const [body, message] of refusals) {
        const res = await stack.admin('PUT', tagsOf(device.deviceid), { body });
        expectError(res, 400, 'INVALID_BODY');
        expect(res.body.message).to.match(message);
      }
      expect((await stack.admin('GET', tagsOf(device.deviceid))).body).to.deep.equal([{ ...TEMP, name: 'env.temp', enabled: true }]);
    });

    it('replaces the whole list; an empty one removes every tag', async () => {
      const device = await aDevice(stack);
      await stack.admin('PUT', tagsOf(device.deviceid), { body: [TEMP, DOOR] });

      await stack.admin('PUT', tagsOf(device.deviceid), { body: [{ ...DOOR, name: 'Front door' }] });
      expect((await stack.admin('GET', tagsOf(device.deviceid))).body).to.deep.equal([{ ...DOOR, name: 'Front door', enabled: true }]);

      await stack.admin('PUT', tagsOf(device.deviceid), { body: [] });
      expect((await stack.admin('GET', tagsOf(device.deviceid))).body).to.deep.equal([]);
    });
  });

  describe('PATCH and DELETE /v2/admin/devices/{deviceid}/datatags/{attr}', () => {
    it('turns one tag off and on again, leaving the others', async () => {
      const device = await aDevice(stack);
      await stack.admin('PUT', tagsOf(device.deviceid), { body: [TEMP, DOOR] });

      const off = await stack.admin('PATCH', `${tagsOf(device.deviceid)}/temp`, { body: { enabled: false } });

      expect(off.status, off.text).to.equal(200);
      expect(off.body).to.deep.equal({ ...TEMP, name: 'env.temp', enabled: false });
      expect((await stack.admin('GET', tagsOf(device.deviceid))).body.map((t: { enabled: boolean }) => t.enabled)).to.deep.equal([true, false]);
      await stack.admin('PATCH', `${tagsOf(device.deviceid)}/temp`, { body: { enabled: true } });
      expect((await stack.admin('GET', tagsOf(device.deviceid))).body.map((t: { enabled: boolean }) => t.enabled)).to.deep.equal([true, true]);
    });

    it('answers 404 DATATAG_NOT_FOUND for an attr the device has not, and 400 for a toggle without enabled', async () => {
      const device = await aDevice(stack);
      await stack.admin('PUT', tagsOf(device.deviceid), { body: [TEMP] });

      expectError(await stack.admin('PATCH', `${tagsOf(device.deviceid)}/nope`, { body: { enabled: false } }), 404, 'DATATAG_NOT_FOUND');
      expectError(await stack.admin('DELETE', `${tagsOf(device.deviceid)}/nope`), 404, 'DATATAG_NOT_FOUND');
      expectError(await stack.admin('PATCH', `${tagsOf(device.deviceid)}/temp`, { body: { enabled: 'no' } }), 400, 'INVALID_BODY');
    });

    it('deletes one tag: 204, then 404', async () => {
      const device = await aDevice(stack);
      await stack.admin('PUT', tagsOf(device.deviceid), { body: [TEMP, DOOR] });

      expect((await stack.admin('DELETE', `${tagsOf(device.deviceid)}/temp`)).status).to.equal(204);

      expect((await stack.admin('GET', tagsOf(device.deviceid))).body.map((t: { attr: string }) => t.attr)).to.deep.equal(['door']);
      expectError(await stack.admin('DELETE', `${tagsOf(device.deviceid)}/temp`), 404, 'DATATAG_NOT_FOUND');
    });
  });

  describe('operators', () => {
    it('reach the datatags of their projects only, and change them only from the operator role up', async () => {
      const [mine, theirs] = [await aDevice(stack), await aDevice(stack)];
      const keyOf = async (role: string) => {
        const res = await stack.admin('POST', '/v2/admin/operators', { body: { name: `${role}-${randomUUID().slice(0, 8)}`, role, projects: [mine.projectid] } });
        expect(res.status, res.text).to.equal(201);
        return httpClient(stack.baseUrl, { authorization: `Bearer ${res.body.key}` });
      };
      const [operator, viewer] = [await keyOf('operator'), await keyOf('viewer')];

      expect((await operator('PUT', tagsOf(mine.deviceid), { body: [TEMP] })).status).to.equal(200);
      expect((await viewer('GET', tagsOf(mine.deviceid))).body).to.have.length(1);
      expectError(await viewer('PATCH', `${tagsOf(mine.deviceid)}/temp`, { body: { enabled: false } }), 403, 'ROLE_FORBIDDEN');
      expectError(await operator('GET', tagsOf(theirs.deviceid)), 403, 'PROJECT_FORBIDDEN');
      expectError(await operator('POST', `${tagsOf(theirs.deviceid)}/temp/clear`), 403, 'PROJECT_FORBIDDEN');
      expectError(await operator('PUT', `/v2/admin/projects/${theirs.projectid}/groups/g/datatags`, { body: [] }), 403, 'PROJECT_FORBIDDEN');
    });
  });

  describe('/v2/admin/projects/{projectid}/groups/{groupid}/datatags', () => {
    it('keeps a group default apart from its devices\' own tags, with the same toggle and delete', async () => {
      const projectid = `p-${randomUUID().slice(0, 8)}`;
      const group = `/v2/admin/projects/${projectid}/groups/g/datatags`;
      const device = await aDevice(stack, { projectid, groupid: 'g' });

      expect((await stack.admin('PUT', group, { body: [DOOR] })).status).to.equal(200);
      expect((await stack.admin('PATCH', `${group}/door`, { body: { enabled: false } })).body.enabled).to.equal(false);

      expect((await stack.admin('GET', group)).body).to.deep.equal([{ ...DOOR, name: 'door', enabled: false }]);
      expect((await stack.admin('GET', tagsOf(device.deviceid))).body).to.deep.equal([]);
      expect((await stack.admin('DELETE', `${group}/door`)).status).to.equal(204);
      expect((await stack.admin('GET', group)).body).to.deep.equal([]);
    });

    it('refuses a malformed project id with 400', async () => {
      expectError(await stack.admin('GET', '/v2/admin/projects/bad$id/groups/g/datatags'), 400, 'INVALID_QUERY');
    });
  });
});

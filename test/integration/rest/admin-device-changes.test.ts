import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { aDevice, aGroup } from '../../helpers/devices';
import { connectDevice } from '../../helpers/mqtt';
import { asDevice, expectError } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

describe('changing devices through the admin API', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  const patch = (deviceid: string, body: unknown) => stack.admin('PATCH', `/v2/admin/devices/${deviceid}`, { body });

  describe('PATCH /v2/admin/devices/{deviceid}', () => {
    it('changes alias, groupid, enabled, banned, livenessttl and description and returns the record', async () => {
      const device = await aDevice(stack);
      const change = { alias: 'new-name', groupid: 'new-group', enabled: false, banned: true, livenessttl: 9, description: 'moved' };

      const res = await patch(device.deviceid, change);
      const read = await stack.admin('GET', `/v2/admin/devices/${device.deviceid}`);

      expect(res.status).to.equal(200);
      expect(res.body).to.include({ ...change, deviceid: device.deviceid, projectid: device.projectid }).and.not.to.have.any.keys('token', 'secret');
      expect(read.body).to.deep.equal(res.body);
    });

    it('leaves the members it is not given as they were', async () => {
      const device = await aDevice(stack);

      const res = await patch(device.deviceid, { description: 'only this' });

      expect(res.body).to.include({ alias: device.alias, groupid: device.groupid, enabled: true, banned: false, description: 'only this' });
    });

    it('makes a new alias the one other devices of the group find', async () => {
      const [caller, target] = await aGroup(stack, 2);
      await patch(target.deviceid, { alias: 'renamed' });

      const byNew = await asDevice(stack, caller)('GET', '/v2/device/shadow/data?alias=renamed');
      const byOld = await asDevice(stack, caller)('GET', `/v2/device/shadow/data?alias=${target.alias}`);

      expect(byNew.body.deviceid).to.equal(target.deviceid);
      expectError(byOld, 404, 'ALIAS_NOT_FOUND');
    });

    it('moves a device to another group, where the new group finds it by alias and the old one no longer does', async () => {
      const [caller, moved] = await aGroup(stack, 2);
      const newGroupMate = await aDevice(stack, { projectid: caller.projectid });
      await patch(moved.deviceid, { groupid: newGroupMate.groupid });

      const fromOldGroup = await asDevice(stack, caller)('GET', `/v2/device/shadow/data?alias=${moved.alias}`);
      const fromNewGroup = await asDevice(stack, newGroupMate)('GET', `/v2/device/shadow/data?alias=${moved.alias}`);

      expectError(fromOldGroup, 403, 'OTHER_GROUP');
      expect(fromNewGroup.body.deviceid).to.equal(moved.deviceid);
    });

    it('answers 409 ALIAS_TAKEN for an alias used by another device of the group', async () => {
      const [a, b] = await aGroup(stack, 2);

      expectError(await patch(a.deviceid, { alias: b.alias }), 409, 'ALIAS_TAKEN');
      expect((await stack.admin('GET', `/v2/admin/devices/${a.deviceid}`)).body.alias).to.equal(a.alias);
    });

    it('answers 400 INVALID_BODY naming an unknown or read-only member', async () => {
      const device = await aDevice(stack);
      for (const member of ['colour', 'token', 'deviceid', 'projectid']) {
        const res = await patch(device.deviceid, { [member]: 'x' });
        expectError(res, 400, 'INVALID_BODY');
        expect(res.body.message).to.include(member);
      }
    });

    it('answers 404 DEVICE_NOT_FOUND for an unknown id', async () => {
      expectError(await patch(randomUUID(), { description: 'x' }), 404, 'DEVICE_NOT_FOUND');
    });
  });

  describe('POST /v2/admin/devices/{deviceid}/token', () => {
    it('returns the record with a new token of 32+ characters, shown this once; the old token stops working', async () => {
      const device = await aDevice(stack);

      const res = await stack.admin('POST', `/v2/admin/devices/${device.deviceid}/token`);

      expect(res.status).to.equal(200);
      expect(res.headers.get('cache-control')).to.equal('no-store');
      expect(res.body).to.include({ deviceid: device.deviceid }).and.not.to.have.any.keys('secret');
      expect(res.body.token).to.be.a('string').with.length.of.at.least(32).and.not.equal(device.token);
      expect((await asDevice(stack, device)('GET', '/v2/device/status')).status).to.equal(401);
      const rotated = { ...device, auth: `Device ${device.deviceid}:${res.body.token}` };
      expect((await asDevice(stack, rotated)('GET', '/v2/device/status')).status).to.equal(200);
    });

    it('answers 404 DEVICE_NOT_FOUND for an unknown id', async () => {
      expectError(await stack.admin('POST', `/v2/admin/devices/${randomUUID()}/token`), 404, 'DEVICE_NOT_FOUND');
    });
  });

  describe('POST /v2/admin/devices/{deviceid}/secret', () => {
    it('returns the record with a new secret, shown this once: MQTT takes the new one and refuses the old one', async () => {
      const device = await aDevice(stack);

      const res = await stack.admin('POST', `/v2/admin/devices/${device.deviceid}/secret`);

      expect(res.status).to.equal(200);
      expect(res.headers.get('cache-control')).to.equal('no-store');
      expect(res.body).to.include({ deviceid: device.deviceid }).and.not.to.have.any.keys('token');
      expect(res.body.secret).to.be.a('string').with.length.of.at.least(32).and.not.equal(device.secret);
      (await connectDevice(stack.mqttUrl, device, { password: res.body.secret })).end(true);
      const refused = await connectDevice(stack.mqttUrl, device, { password: device.secret }).then((c) => c.end(true), (err: Error) => err);
      expect(refused).to.be.instanceOf(Error);
    });
  });

  describe('DELETE /v2/admin/devices/{deviceid}', () => {
    it('answers 204, after which the device is gone and its credentials no longer work', async () => {
      const device = await aDevice(stack);
      await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { a: 1 } } });

      const res = await stack.admin('DELETE', `/v2/admin/devices/${device.deviceid}`);

      expect(res.status).to.equal(204);
      expect(res.text).to.equal('');
      expectError(await stack.admin('GET', `/v2/admin/devices/${device.deviceid}`), 404, 'DEVICE_NOT_FOUND');
      expectError(await asDevice(stack, device)('GET', '/v2/device/shadow/data'), 401, 'INVALID_CREDENTIALS');
    });

    it('takes the shadow with it: a new device under the same alias starts empty', async () => {
      const [caller, doomed] = await aGroup(stack, 2);
      await asDevice(stack, doomed)('PUT', '/v2/device/shadow/data', { body: { data: { old: true } } });
      await stack.admin('DELETE', `/v2/admin/devices/${doomed.deviceid}`);

      const goneRead = await asDevice(stack, caller)('GET', `/v2/device/shadow/data?alias=${doomed.alias}`);
      const successor = await aDevice(stack, { projectid: doomed.projectid, groupid: doomed.groupid, alias: doomed.alias });
      const successorRead = await asDevice(stack, caller)('GET', `/v2/device/shadow/data?alias=${doomed.alias}`);

      expectError(goneRead, 404, 'ALIAS_NOT_FOUND');
      expect(successorRead.body).to.include({ deviceid: successor.deviceid, rev: 0 });
      expect(successorRead.body.data).to.deep.equal({});
    });

    it('answers 404 DEVICE_NOT_FOUND for an unknown or already deleted id', async () => {
      const device = await aDevice(stack);
      await stack.admin('DELETE', `/v2/admin/devices/${device.deviceid}`);

      expectError(await stack.admin('DELETE', `/v2/admin/devices/${device.deviceid}`), 404, 'DEVICE_NOT_FOUND');
      expectError(await stack.admin('DELETE', `/v2/admin/devices/${randomUUID()}`), 404, 'DEVICE_NOT_FOUND');
    });
  });
});

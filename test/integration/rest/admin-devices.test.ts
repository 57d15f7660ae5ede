import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { aDevice } from '../../helpers/devices';
import { expectError } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const id = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

describe('the admin device API (/v2/admin/devices)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  describe('admin authorisation', () => {
    it('answers 401 MISSING_CREDENTIALS without a bearer token and 401 INVALID_CREDENTIALS with a wrong one', async () => {
      const missing = await stack.http('GET', '/v2/admin/devices');
      const wrong = await stack.http('GET', '/v2/admin/devices', { headers: { authorization: 'Bearer not-the-admin-token' } });
      const deviceAuth = await stack.http('POST', '/v2/admin/devices', {
        headers: { authorization: (await aDevice(stack)).auth },
        body: { projectid: 'p', groupid: 'g', alias: 'a' },
      });

      expectError(missing, 401, 'MISSING_CREDENTIALS');
      expectError(wrong, 401, 'INVALID_CREDENTIALS');
      expect(deviceAuth.status).to.equal(401);
    });

    it('guards every admin route', async () => {
      for (const [method, path] of [
        ['POST', '/v2/admin/devices'],
        ['GET', '/v2/admin/devices'],
        ['GET', `/v2/admin/devices/${randomUUID()}`],
        ['PATCH', `/v2/admin/devices/${randomUUID()}`],
        ['DELETE', `/v2/admin/devices/${randomUUID()}`],
        ['POST', `/v2/admin/devices/${randomUUID()}/token`],
        ['POST', '/v2/admin/tokens'],
      ]) {
        expectError(await stack.http(method, path, { headers: { authorization: 'Bearer wrong-token-of-some-length' } }), 401, 'INVALID_CREDENTIALS');
      }
    });
  });

  describe('POST /v2/admin/devices', () => {
    it('answers 201 with the whole record, the token and secret shown this once and kept by no cache', async () => {
      const body = { projectid: id('p'), groupid: id('g'), alias: 'kitchen lamp' };

      const res = await stack.admin('POST', '/v2/admin/devices', { body });

      expect(res.status).to.equal(201);
      expect(res.body).to.include({ ...body, enabled: true, banned: false, description: '', livenessttl: 0 });
      expect(res.body.deviceid).to.match(UUID);
      expect(res.body.token).to.be.a('string').with.length.of.at.least(32);
      expect(res.body.secret).to.be.a('string').that.is.not.empty.and.not.equal(res.body.token);
      expect(res.body.created).to.be.a('number');
      expect(res.headers.get('cache-control')).to.equal('no-store');
    });

    it('takes description, enabled and livenessttl when given', async () => {
      const body = { projectid: id('p'), groupid: id('g'), alias: 'x', description: 'in the hall', enabled: false, livenessttl: 30 };

      const res = await stack.admin('POST', '/v2/admin/devices', { body });

      expect(res.status).to.equal(201);
      expect(res.body).to.include(body);
    });

    it('gives every device its own id and token', async () => {
      const [a, b] = [await aDevice(stack), await aDevice(stack)];

      expect(a.deviceid).to.not.equal(b.deviceid);
      expect(a.token).to.not.equal(b.token);
    });

    it('answers 409 ALIAS_TAKEN for an alias already used in the group, and allows it in another group', async () => {
      const first = await aDevice(stack);

      const same = await stack.admin('POST', '/v2/admin/devices', { body: { projectid: first.projectid, groupid: first.groupid, alias: first.alias } });
      const otherGroup = await stack.admin('POST', '/v2/admin/devices', { body: { projectid: first.projectid, groupid: id('g'), alias: first.alias } });

      expectError(same, 409, 'ALIAS_TAKEN');
      expect(otherGroup.status).to.equal(201);
    });

    for (const [what, body, mentions] of [
      ['an unknown member', { projectid: 'p', groupid: 'g', alias: 'a', colour: 'red' }, 'colour'],
      ['a missing alias', { projectid: 'p', groupid: 'g' }, 'alias'],
      ['a projectid with a slash', { projectid: 'p/q', groupid: 'g', alias: 'a' }, 'projectid'],
      ['a groupid with a wildcard', { projectid: 'p', groupid: 'g+', alias: 'a' }, 'groupid'],
      ['a blank alias', { projectid: 'p', groupid: 'g', alias: '   ' }, 'alias'],
      ['an alias with a control character', { projectid: 'p', groupid: 'g', alias: 'a\nb' }, 'alias'],
      ['a livenessttl that is not an integer', { projectid: 'p', groupid: 'g', alias: 'a', livenessttl: 1.5 }, 'livenessttl'],
      ['an enabled that is a string', { projectid: 'p', groupid: 'g', alias: 'a', enabled: 'yes' }, 'enabled'],
    ] as const) {
      it(`answers 400 INVALID_BODY naming the member for ${what}`, async () => {
        const res = await stack.admin('POST', '/v2/admin/devices', { body });

        expectError(res, 400, 'INVALID_BODY');
        expect(res.body.message).to.include(mentions);
      });
    }

    it('answers 400 INVALID_BODY for an alias or description that is not valid Unicode', async () => {
      for (const text of [String.raw`{"projectid":"p","groupid":"g","alias":"\ud800"}`, String.raw`{"projectid":"p","groupid":"g","alias":"b","description":"\udfff"}`]) {
        const res = await stack.admin('POST', '/v2/admin/devices', { body: text, contentType: 'application/json' });
        expectError(res, 400, 'INVALID_BODY');
      }
    });
  });

  describe('GET /v2/admin/devices', () => {
    it('lists the devices of a project, and of one group with groupid', async () => {
      const projectid = id('p');
      const [g1, g2] = [id('g'), id('g')];
      const a = await aDevice(stack, { projectid, groupid: g1 });
      const b = await aDevice(stack, { projectid, groupid: g1 });
      const c = await aDevice(stack, { projectid, groupid: g2 });
      await aDevice(stack, { groupid: g1 });

      const project = await stack.admin('GET', `/v2/admin/devices?projectid=${projectid}`);
      const group = await stack.admin('GET', `/v2/admin/devices?projectid=${projectid}&groupid=${g1}`);

      const ids = (res: typeof project) => res.body.devices.map((d: { deviceid: string }) => d.deviceid);
      expect(project.status).to.equal(200);
      expect(ids(project)).to.have.members([a.deviceid, b.deviceid, c.deviceid]);
      expect(ids(group)).to.have.members([a.deviceid, b.deviceid]);
      const listed = group.body.devices.find((d: { deviceid: string }) => d.deviceid === a.deviceid);
      expect(listed).to.include({ alias: a.alias }).and.not.to.have.any.keys('token', 'secret');
      expect(JSON.stringify(project.body)).not.to.include(a.token).and.not.to.include(a.secret);
    });

    it('lists every device without filters', async () => {
      const device = await aDevice(stack);

      const res = await stack.admin('GET', '/v2/admin/devices');

      expect(res.body.devices.map((d: { deviceid: string }) => d.deviceid)).to.include(device.deviceid);
    });

    it('answers 400 INVALID_QUERY for an unknown or malformed filter', async () => {
      expectError(await stack.admin('GET', '/v2/admin/devices?colour=red'), 400, 'INVALID_QUERY');
      expectError(await stack.admin('GET', '/v2/admin/devices?projectid=a%2Fb'), 400, 'INVALID_QUERY');
      expectError(await stack.admin('GET', '/v2/admin/devices?projectid=a&projectid=b'), 400, 'INVALID_QUERY');
    });
  });

  describe('GET /v2/admin/devices/{deviceid}', () => {
    it('returns the record without its token and secret, which only the answer that issues them shows (issue 20 §2)', async () => {
      const device = await aDevice(stack);

      const res = await stack.admin('GET', `/v2/admin/devices/${device.deviceid}`);

      expect(res.status).to.equal(200);
      expect(res.body).to.include({ deviceid: device.deviceid, alias: device.alias }).and.not.to.have.any.keys('token', 'secret');
      expect(res.text).not.to.include(device.token).and.not.to.include(device.secret);
    });

    it('answers 404 DEVICE_NOT_FOUND for an unknown id', async () => {
      expectError(await stack.admin('GET', `/v2/admin/devices/${randomUUID()}`), 404, 'DEVICE_NOT_FOUND');
    });
  });
});

import { expect } from 'chai';
import { aDevice, aGroup, TestDevice } from '../../helpers/devices';
import { httpClient, HttpResponse } from '../../helpers/http';
import { expectDocumentedResponse, OpenApiDocument, schemaValidator } from '../../helpers/openapi';
import { openApiDocument } from '../../../src/http/openapi/document';
import { asDevice, expectError } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

describe('desired state over REST (issue 25 §2)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  const desiredOf = (device: TestDevice) => asDevice(stack, device)('GET', '/v2/device/shadow/desired');
  const writeData = (device: TestDevice, data: object) => asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data } });
  async function aTokenOf(projectid: string, grants: string[]): Promise<string> {
    const res = await stack.admin('POST', '/v2/admin/tokens', { body: { projectid, grants } });
    expect(res.status, res.text).to.equal(201);
    return res.body.token;
  }

  describe('GET/PUT/POST /v2/device/shadow/desired', () => {
    it('answers an empty document at rev 0 for a device nobody gave desired state', async () => {
      const [device] = await aGroup(stack, 1);

      const res = await desiredOf(device);

      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.equal({ status: 200, deviceid: device.deviceid, desired: {}, delta: {}, rev: 0, datarev: 0, modified: 0 });
      expect(res.headers.get('etag')).to.equal('"0"');
    });

    it('merges a write (PUT) and answers the document with its delta against data, and its own rev as ETag', async () => {
      const [device] = await aGroup(stack, 1);
      await writeData(device, { led: 'off', temp: 21, config: { rate: 5, unit: 'F' } });

      await asDevice(stack, device)('PUT', '/v2/device/shadow/desired', { body: { data: { led: 'on' } } });
      const res = await asDevice(stack, device)('PUT', '/v2/device/shadow/desired', { body: { data: { config: { rate: 5, unit: 'C' } } } });

      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.include({
        deviceid: device.deviceid,
        desired: { led: 'on', config: { rate: 5, unit: 'C' } },
        delta: { led: 'on', config: { unit: 'C' } },
        rev: 2,
        datarev: 1,
      });
      expect(res.headers.get('etag')).to.equal('"2"');
    });

    it('overwrites with POST and deletes members set to null with PUT, as data writes do', async () => {
      const [device] = await aGroup(stack, 1);
      const as = asDevice(stack, device);
      await as('PUT', '/v2/device/shadow/desired', { body: { data: { a: 1, b: { c: 2, d: 3 } } } });

      await as('PUT', '/v2/device/shadow/desired', { body: { data: { b: { d: null } } } });
      expect((await desiredOf(device)).body.desired).to.deep.equal({ a: 1, b: { c: 2 } });

      const res = await as('POST', '/v2/device/shadow/desired', { body: { data: { z: true } } });
      expect(res.body.desired).to.deep.equal({ z: true });
    });

    it('drops a field from the delta once the device reports its desired value', async () => {
      const [device] = await aGroup(stack, 1);
      await asDevice(stack, device)('PUT', '/v2/device/shadow/desired', { body: { data: { led: 'on', fan: 2 } } });

      await writeData(device, { led: 'on' });

      const res = await desiredOf(device);
      expect(res.body.delta).to.deep.equal({ fan: 2 });
      expect(res.body.desired).to.deep.equal({ led: 'on', fan: 2 });
    });

    it('leaves data and its rev alone', async () => {
      const [device] = await aGroup(stack, 1);
      await writeData(device, { led: 'off' });

      await asDevice(stack, device)('PUT', '/v2/device/shadow/desired', { body: { data: { led: 'on' } } });

      const data = await asDevice(stack, device)('GET', '/v2/device/shadow/data');
      expect(data.body).to.deep.include({ data: { led: 'off' }, rev: 1 });
    });

    it('lets a device of the same group write with ?alias=, and refuses one of another group', async () => {
      const [device, groupmate] = await aGroup(stack, 2);
      const stranger = await aDevice(stack, { projectid: device.projectid });

      const res = await asDevice(stack, groupmate)('PUT', `/v2/device/shadow/desired?alias=${device.alias}`, { body: { data: { led: 'on' } } });
      expect(res.status, res.text).to.equal(200);
      expect((await desiredOf(device)).body.desired).to.deep.equal({ led: 'on' });

      expectError(await asDevice(stack, stranger)('PUT', `/v2/device/shadow/desired?alias=${device.alias}`, { body: { data: { led: 'off' } } }), 403, 'OTHER_GROUP');
      expect((await desiredOf(device)).body.desired).to.deep.equal({ led: 'on' });
    });

    it('answers at /device/shadow/desired too, as the rest of the Device API', async () => {
      const [device] = await aGroup(stack, 1);

      const res = await asDevice(stack, device)('PUT', '/device/shadow/desired', { body: { data: { x: 1 } } });

      expect(res.status, res.text).to.equal(200);
      expect((await desiredOf(device)).body.desired).to.deep.equal({ x: 1 });
    });

    it('refuses a conditional write on a rev the desired document is not at with 412 REV_MISMATCH, applying nothing', async () => {
      const [device] = await aGroup(stack, 1);
      const as = asDevice(stack, device);
      await as('PUT', '/v2/device/shadow/desired', { body: { data: { a: 1 } } });

      expectError(await as('PUT', '/v2/device/shadow/desired', { body: { data: { a: 2 } }, headers: { 'if-match': '"7"' } }), 412, 'REV_MISMATCH');
      expectError(await as('PUT', '/v2/device/shadow/desired', { body: { data: { a: 3 }, rev: 0 } }), 412, 'REV_MISMATCH');
      const ok = await as('PUT', '/v2/device/shadow/desired', { body: { data: { a: 4 } }, headers: { 'if-match': '"1"' } });

      expect(ok.status, ok.text).to.equal(200);
      expect(ok.body).to.deep.include({ desired: { a: 4 }, rev: 2 });
    });

    it('refuses a body that is no desired write (unknown members, timestamp) with 400 INVALID_BODY', async () => {
      const [device] = await aGroup(stack, 1);

      expectError(await asDevice(stack, device)('PUT', '/v2/device/shadow/desired', { body: { data: { a: 1 }, timestamp: 5 } }), 400, 'INVALID_BODY');
      expectError(await asDevice(stack, device)('PUT', '/v2/device/shadow/desired', { body: { desired: { a: 1 } } }), 400, 'INVALID_BODY');
      expect((await desiredOf(device)).body.rev).to.equal(0);
    });

    it('applies the device schema to desired values, with warnings as for data', async () => {
      const [device] = await aGroup(stack, 1);
      const schema = { additionalProperties: false, properties: { target: { type: 'number' } } };
      expect((await stack.admin('PUT', `/v2/admin/devices/${device.deviceid}/schema`, { body: schema })).status).to.equal(200);

      const res = await asDevice(stack, device)('PUT', '/v2/device/shadow/desired', { body: { data: { target: '21.5', other: 1 } } });

      expect(res.status, res.text).to.equal(200);
      expect(res.body.desired).to.deep.equal({ target: 21.5 });
      expect(res.body.warnings.map((w: { field: string; action: string }) => [w.field, w.action])).to.deep.equal([['target', 'coerced'], ['other', 'dropped']]);
    });

    it('costs the API calls of a data write, once (one admission), and one shadow operation', async () => {
      const [device] = await aGroup(stack, 1);
      const used = async () => {
        const { quotas } = (await stack.admin('GET', `/v2/admin/projects/${device.projectid}/quotas`)).body;
        return { shadowOps: quotas.shadowOps.used as number, apiCalls: quotas.apiCalls.used as number };
      };
      const start = await used();
      await writeData(device, { b: 1 });
      const afterData = await used();

      await asDevice(stack, device)('PUT', '/v2/device/shadow/desired', { body: { data: { a: 1 } } });

      const afterDesired = await used();
      expect(afterDesired.apiCalls - afterData.apiCalls).to.equal(afterData.apiCalls - start.apiCalls);
      expect(afterDesired.shadowOps - afterData.shadowOps).to.equal(1);
    });
  });

  describe('/v2/admin/devices/{deviceid}/shadow/desired', () => {
    it('lets an operator read, merge and overwrite a device\'s desired document', async () => {
      const [device] = await aGroup(stack, 1);
      const path = `/v2/admin/devices/${device.deviceid}/shadow/desired`;

      await stack.admin('PUT', path, { body: { data: { led: 'on', fan: 1 } } });
      const overwritten = await stack.admin('POST', path, { body: { data: { fan: 3 } } });
      const read = await stack.admin('GET', path);

      expect(overwritten.status, overwritten.text).to.equal(200);
      expect(read.body).to.deep.include({ deviceid: device.deviceid, desired: { fan: 3 }, delta: { fan: 3 }, rev: 2 });
      expect(read.headers.get('etag')).to.equal('"2"');
      expect((await desiredOf(device)).body.desired).to.deep.equal({ fan: 3 });
    });

    it('lets a viewer read but not write, and an operator of another project do neither', async () => {
      const [device] = await aGroup(stack, 1);
      const path = `/v2/admin/devices/${device.deviceid}/shadow/desired`;
      const keyOf = async (role: string, projects: string[]) => {
        const res = await stack.admin('POST', '/v2/admin/operators', { body: { name: `op-${Math.random().toString(36).slice(2, 10)}`, role, projects } });
        expect(res.status, res.text).to.equal(201);
        return httpClient(stack.baseUrl, { authorization: `Bearer ${res.body.key}` });
      };
      const viewer = await keyOf('viewer', [device.projectid]);
      const stranger = await keyOf('operator', ['elsewhere']);

      expect((await viewer('GET', path)).status).to.equal(200);
      expectError(await viewer('PUT', path, { body: { data: { led: 'on' } } }), 403, 'ROLE_FORBIDDEN');
      expectError(await stranger('GET', path), 403, 'PROJECT_FORBIDDEN');
      expectError(await stranger('POST', path, { body: { data: { led: 'on' } } }), 403, 'PROJECT_FORBIDDEN');
      expect((await desiredOf(device)).body.rev).to.equal(0);
    });

    it('answers 404 DEVICE_NOT_FOUND for a device that does not exist', async () => {
      expectError(await stack.admin('PUT', '/v2/admin/devices/nope/shadow/desired', { body: { data: { a: 1 } } }), 404, 'DEVICE_NOT_FOUND');
    });
  });

  describe('the OpenAPI document', () => {
    const doc = openApiDocument() as unknown as OpenApiDocument;
    const documented = (method: string, path: string, res: HttpResponse) => expectDocumentedResponse(doc, schemaValidator(doc), { method, path }, res);

    it('describes the answers of every desired route, successes and errors', async () => {
      const [device] = await aGroup(stack, 1);
      const as = asDevice(stack, device);
      const user = httpClient(stack.baseUrl, { authorization: `Bearer ${await aTokenOf(device.projectid, ['read'])}` });
      const adminPath = `/v2/admin/devices/${device.deviceid}/shadow/desired`;

      documented('PUT', '/v2/device/shadow/desired', await as('PUT', '/v2/device/shadow/desired', { body: { data: { a: 1 } } }));
      documented('POST', '/v2/device/shadow/desired', await as('POST', '/v2/device/shadow/desired', { body: { data: { a: 2 } } }));
      documented('GET', '/v2/device/shadow/desired', await as('GET', '/v2/device/shadow/desired'));
      documented('PUT', '/v2/device/shadow/desired', await as('PUT', '/v2/device/shadow/desired', { body: { data: { a: 3 }, rev: 9 } }));
      documented('GET', '/v2/admin/devices/{deviceid}/shadow/desired', await stack.admin('GET', adminPath));
      documented('PUT', '/v2/shadows/{deviceid}/desired', await user('PUT', `/v2/shadows/${device.deviceid}/desired`, { body: { data: { a: 4 } } }));
    });
  });

  describe('/v2/shadows/{deviceid}/desired with a user token', () => {
    it('lets a token with the grant "desired" read and write within its project', async () => {
      const [device] = await aGroup(stack, 1);
      const token = await aTokenOf(device.projectid, ['desired']);
      const user = httpClient(stack.baseUrl, { authorization: `Bearer ${token}` });

      const written = await user('PUT', `/v2/shadows/${device.deviceid}/desired`, { body: { data: { led: 'on' } } });
      const read = await user('GET', `/v2/shadows/${device.deviceid}/desired`);

      expect(written.status, written.text).to.equal(200);
      expect(read.body).to.deep.include({ desired: { led: 'on' }, delta: { led: 'on' }, rev: 1 });
    });

    it('refuses a token without the grant with 403 TOKEN_GRANT_MISSING, writing nothing', async () => {
      const [device] = await aGroup(stack, 1);
      const token = await aTokenOf(device.projectid, ['fleet']);
      const user = httpClient(stack.baseUrl, { authorization: `Bearer ${token}` });

      const res = await user('PUT', `/v2/shadows/${device.deviceid}/desired`, { body: { data: { led: 'on' } } });

      expectError(res, 403, 'TOKEN_GRANT_MISSING');
      expect(res.body.grant).to.equal('desired');
      expect((await desiredOf(device)).body.rev).to.equal(0);
    });

    it('answers 404 for a device of another project, as for one that does not exist', async () => {
      const [device] = await aGroup(stack, 1);
      const [other] = await aGroup(stack, 1);
      const user = httpClient(stack.baseUrl, { authorization: `Bearer ${await aTokenOf(other.projectid, ['desired'])}` });

      expectError(await user('PUT', `/v2/shadows/${device.deviceid}/desired`, { body: { data: { led: 'on' } } }), 404, 'DEVICE_NOT_FOUND');
      expect((await desiredOf(device)).body.rev).to.equal(0);
    });

    it('refuses a call without a token (401 MISSING_CREDENTIALS) and with a forged one (401 INVALID_CREDENTIALS)', async () => {
      const [device] = await aGroup(stack, 1);

      expectError(await stack.http('GET', `/v2/shadows/${device.deviceid}/desired`), 401, 'MISSING_CREDENTIALS');
      const forged = httpClient(stack.baseUrl, { authorization: 'Bearer eyJhbGciOiJFUzI1NiJ9.e30.c2ln' });
      expectError(await forged('GET', `/v2/shadows/${device.deviceid}/desired`), 401, 'INVALID_CREDENTIALS');
    });
  });
});

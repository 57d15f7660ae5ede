import { expect } from 'chai';
import { openApiDocument } from '../../../src/http/openapi/document';
import { aDevice, TestDevice } from '../../helpers/devices';
import { expectDocumentedResponse, OpenApiDocument, schemaValidator, SchemaValidator } from '../../helpers/openapi';
import { asDevice, expectError } from '../../helpers/rest-device';
import { Stack, startStack } from '../../helpers/stack';

const doc = openApiDocument() as unknown as OpenApiDocument;
const SHADOW_ROUTE = '/v2/admin/devices/{deviceid}/shadow';

describe('GET and PUT /v2/admin/devices/{deviceid}/shadow', () => {
  let stack: Stack;
  let device: TestDevice;
  let validator: SchemaValidator;
  const path = (d: TestDevice) => `/v2/admin/devices/${d.deviceid}/shadow`;

  before(async () => {
    stack = await startStack();
    validator = schemaValidator(doc);
  });
  beforeEach(async () => {
    device = await aDevice(stack);
  });
  after(() => stack.stop());

  it('reads a shadow never written as empty, revision 0', async () => {
    const res = await stack.admin('GET', path(device));
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ status: 200, deviceid: device.deviceid, data: {}, rev: 0, modified: 0, timestamp: 0 });
    expectDocumentedResponse(doc, validator, { method: 'GET', path: SHADOW_ROUTE }, res);
  });

  it('reads what the device wrote', async () => {
    await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { temp: 21.5 } } });
    const res = await stack.admin('GET', path(device));
    expect(res.body).to.include({ rev: 1 });
    expect(res.body.data).to.deep.equal({ temp: 21.5 });
  });

  it('merges nested objects and deletes members set to null, as the device\'s own write would', async () => {
    await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { temp: 21.5, old: 1, config: { mode: 'eco', level: 2 } } } });

    const res = await stack.admin('PUT', path(device), { body: { data: { config: { mode: 'away' }, old: null, humid: 40 } } });

    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ status: 200, deviceid: device.deviceid, rev: 2, applied: true });
    expect(res.body.data).to.deep.equal({ temp: 21.5, humid: 40, config: { mode: 'away', level: 2 } });
    expectDocumentedResponse(doc, validator, { method: 'PUT', path: SHADOW_ROUTE }, res);
    const seen = await asDevice(stack, device)('GET', '/v2/device/shadow/data');
    expect(seen.body.data).to.deep.equal(res.body.data);
  });

  it('records the write\'s numbers as points of the device', async () => {
    await stack.admin('PUT', path(device), { body: { data: { temp: 30 } } });
    const token = (await stack.admin('POST', '/v2/admin/tokens', { body: { projectid: device.projectid } })).body.token;
    const res = await stack.http('POST', '/v2/feed/api/v1/datapoints/query', {
      headers: { authorization: `Bearer ${token}` },
      body: { start_relative: { value: 1, unit: 'hours' }, metrics: [{ name: device.deviceid, tags: { attr: ['temp'] } }] },
    });
    expect(res.body.queries[0].results[0].values.map((v: number[]) => v[1])).to.deep.equal([30]);
  });

  it('refuses what the Device API refuses: unknown members, data that is not an object', async () => {
    expectError(await stack.admin('PUT', path(device), { body: { data: { a: 1 }, extra: true } }), 400, 'INVALID_BODY');
    expectError(await stack.admin('PUT', path(device), { body: { data: [1] } }), 400, 'INVALID_BODY');
    expectError(await stack.admin('PUT', path(device), { body: '{"data":' , contentType: 'application/json' }), 400, 'INVALID_JSON');
    expect((await stack.admin('GET', path(device))).body.rev).to.equal(0);
  });

  it('answers 404 for an unknown device', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const read = await stack.admin('GET', `/v2/admin/devices/${unknown}/shadow`);
    expectError(read, 404, 'DEVICE_NOT_FOUND');
    expectDocumentedResponse(doc, validator, { method: 'GET', path: SHADOW_ROUTE }, read);
    expectError(await stack.admin('PUT', `/v2/admin/devices/${unknown}/shadow`, { body: { data: { a: 1 } } }), 404, 'DEVICE_NOT_FOUND');
  });

  it('needs the admin token: a device\'s own credentials do not open it', async () => {
    expectError(await stack.http('GET', path(device)), 401, 'MISSING_CREDENTIALS');
    expectError(await stack.http('PUT', path(device), { body: { data: { a: 1 } }, headers: { authorization: device.auth } }), 401, 'MISSING_CREDENTIALS');
    expectError(await stack.http('GET', path(device), { headers: { authorization: 'Bearer wrong-token-0123456789' } }), 401, 'INVALID_CREDENTIALS');
  });

  it('refuses other methods with 405', async () => {
    expectError(await stack.admin('POST', path(device), { body: { data: {} } }), 405, 'METHOD_NOT_ALLOWED');
  });
});

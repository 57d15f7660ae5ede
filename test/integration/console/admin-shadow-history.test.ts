import { expect } from 'chai';
import { openApiDocument } from '../../../src/http/openapi/document';
import { aDevice } from '../../helpers/devices';
import { expectDocumentedResponse, OpenApiDocument, schemaValidator, SchemaValidator } from '../../helpers/openapi';
import { asDevice, expectError } from '../../helpers/rest-device';
import { Stack, startStack } from '../../helpers/stack';

const doc = openApiDocument() as unknown as OpenApiDocument;

describe('the shadow history in the admin API: GET /v2/admin/devices/{deviceid}/shadow?at= and .../shadow/revisions', () => {
  let stack: Stack;
  let validator: SchemaValidator;
  before(async () => {
    stack = await startStack();
    validator = schemaValidator(doc);
  });
  after(() => stack.stop());

  it('keeps the writes of the device and of the admin alike as revisions, and reads the shadow at each one', async () => {
    const device = await aDevice(stack);
    const own = await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { temp: 21.5, mode: 'eco' } } });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const admin = await stack.admin('PUT', `/v2/admin/devices/${device.deviceid}/shadow`, { body: { data: { mode: null, temp: 19 } } });

    const page = await stack.admin('GET', `/v2/admin/devices/${device.deviceid}/shadow/revisions?limit=1`);
    const rest = await stack.admin('GET', `/v2/admin/devices/${device.deviceid}/shadow/revisions?limit=1&cursor=${page.body.next}`);
    const atFirst = await stack.admin('GET', `/v2/admin/devices/${device.deviceid}/shadow?at=${own.body.modified}`);

    expect(page.status, page.text).to.equal(200);
    expect(page.body.revisions.map((r: { data: unknown }) => r.data)).to.deep.equal([{ temp: 19 }]);
    expect(page.body.revisions[0].rev).to.equal(admin.body.rev);
    expect(rest.body.revisions.map((r: { data: unknown }) => r.data)).to.deep.equal([{ temp: 21.5, mode: 'eco' }]);
    expect(atFirst.body).to.deep.equal({ status: 200, deviceid: device.deviceid, data: { temp: 21.5, mode: 'eco' }, rev: 1, modified: own.body.modified, timestamp: own.body.timestamp });
    expect(atFirst.headers.get('etag')).to.equal('"1"');
    expectDocumentedResponse(doc, validator, { method: 'GET', path: '/v2/admin/devices/{deviceid}/shadow/revisions' }, page);
    expectDocumentedResponse(doc, validator, { method: 'GET', path: '/v2/admin/devices/{deviceid}/shadow' }, atFirst);
  });

  it('answers an unknown device with DEVICE_NOT_FOUND and a malformed ?at= with INVALID_QUERY', async () => {
    const device = await aDevice(stack);

    const missing = await stack.admin('GET', '/v2/admin/devices/5d0c6a52-3b1e-4f0a-9d39-2c8f1a7b9e10/shadow/revisions');
    const malformed = await stack.admin('GET', `/v2/admin/devices/${device.deviceid}/shadow?at=soon`);

    expectError(missing, 404, 'DEVICE_NOT_FOUND');
    expectError(malformed, 400, 'INVALID_QUERY');
  });
});

import { expect } from 'chai';
import { openApiDocument } from '../../../src/http/openapi/document';
import { aDevice, TestDevice } from '../../helpers/devices';
import { HttpClient } from '../../helpers/http';
import { expectDocumentedResponse, OpenApiDocument, schemaValidator, SchemaValidator } from '../../helpers/openapi';
import { asDevice } from '../../helpers/rest-device';
import { Stack, startStack } from '../../helpers/stack';

const doc = openApiDocument() as unknown as OpenApiDocument;

describe('real responses match the OpenAPI document', () => {
  let stack: Stack;
  let device: TestDevice;
  let asSensor: HttpClient;
  let validator: SchemaValidator;
  const expectDocumented = (method: string, path: string, res: Awaited<ReturnType<HttpClient>>) =>
    expectDocumentedResponse(doc, validator, { method, path }, res);

  before(async () => {
    validator = schemaValidator(doc);
    stack = await startStack();
    device = await aDevice(stack);
    asSensor = asDevice(stack, device);
  });
  after(() => stack.stop());

  it('GET /v2/device/status', async () => {
    const res = await asSensor('GET', '/v2/device/status');
    expect(res.status).to.equal(200);
    expectDocumented('GET', '/v2/device/status', res);
  });

  it('GET /v2/device/status without credentials: the documented 401 error', async () => {
    const res = await stack.http('GET', '/v2/device/status');
    expect(res.status).to.equal(401);
    expectDocumented('GET', '/v2/device/status', res);
  });

  it('PUT /v2/device/shadow/data', async () => {
    const res = await asSensor('PUT', '/v2/device/shadow/data', { body: { data: { temp: 21.5, config: { mode: 'eco' } } } });
    expect(res.status).to.equal(200);
    expectDocumented('PUT', '/v2/device/shadow/data', res);
  });

  it('PUT /v2/device/shadow/batch with 101 items: the documented BATCH_TOO_LARGE body', async () => {
    const batch = Array.from({ length: 101 }, (_, i) => ({ data: { temp: i }, ts: -1000 * (101 - i) }));
    const res = await asSensor('PUT', '/v2/device/shadow/batch', { body: { ackid: 7, batch } });
    expect(res.status).to.equal(400);
    expect(res.body).to.include({ code: 'BATCH_TOO_LARGE', errcode: 429, inputsize: 101, ackid: 7 });
    expectDocumented('PUT', '/v2/device/shadow/batch', res);
  });

  it('PUT /v2/device/shadow/batch', async () => {
    const res = await asSensor('PUT', '/v2/device/shadow/batch', { body: { ackid: 'a1', batch: [{ data: { temp: 20 }, ts: -5000 }] } });
    expect(res.status).to.equal(200);
    expectDocumented('PUT', '/v2/device/shadow/batch', res);
  });

  it('POST /v2/feed/api/v1/datapoints/query', async () => {
    const res = await asSensor('POST', '/v2/feed/api/v1/datapoints/query', {
      body: { start_relative: { value: 1, unit: 'hours' }, metrics: [{ name: device.deviceid, tags: { attr: ['temp'] } }] },
    });
    expect(res.status).to.equal(200);
    expect(res.body.queries[0].results[0].values).to.have.length.greaterThan(0);
    expectDocumented('POST', '/v2/feed/api/v1/datapoints/query', res);
  });

  it('POST /v2/feed/api/v1/datapoints/query with a bad query: the documented KairosDB error', async () => {
    const res = await asSensor('POST', '/v2/feed/api/v1/datapoints/query', { body: { metrics: [{ name: device.deviceid }] } });
    expect(res.status).to.equal(400);
    expect(res.body.errors).to.be.an('array').that.is.not.empty;
    expectDocumented('POST', '/v2/feed/api/v1/datapoints/query', res);
  });

  it('POST /v2/feed/api/v1/datapoints/query over a budget: the documented QUERY_TOO_LARGE error (issue 10)', async () => {
    const res = await asSensor('POST', '/v2/feed/api/v1/datapoints/query', {
      body: { start_relative: { value: 80, unit: 'minutes' }, metrics: [{ name: device.deviceid, aggregators: [{ name: 'gaps', sampling: { value: 1, unit: 'milliseconds' } }] }] },
    });
    expect(res.status).to.equal(413);
    expect(res.body).to.include({ code: 'QUERY_TOO_LARGE', budget: 'QUERY_MAX_POINTS_RETURNED' });
    expectDocumented('POST', '/v2/feed/api/v1/datapoints/query', res);
  });

  it('POST /v2/admin/devices', async () => {
    const res = await stack.admin('POST', '/v2/admin/devices', { body: { projectid: 'docs', groupid: 'g1', alias: 'lamp' } });
    expect(res.status).to.equal(201);
    expectDocumented('POST', '/v2/admin/devices', res);
  });

  it('POST /v2/admin/devices with a taken alias: the documented 409', async () => {
    const res = await stack.admin('POST', '/v2/admin/devices', { body: { projectid: 'docs', groupid: 'g1', alias: 'lamp' } });
    expect(res.status).to.equal(409);
    expectDocumented('POST', '/v2/admin/devices', res);
  });

  it('POST /v2/admin/devices/import: a dry run, an import, and the documented 409 with rowErrors', async () => {
    const devices = [{ projectid: 'docs', groupid: 'import', alias: 'one' }];
    const dryRun = await stack.admin('POST', '/v2/admin/devices/import?dryRun=true', { body: { devices } });
    const done = await stack.admin('POST', '/v2/admin/devices/import', { body: { devices } });
    const again = await stack.admin('POST', '/v2/admin/devices/import', { body: 'projectid,groupid,alias\ndocs,import,one\n', contentType: 'text/csv' });

    expect([dryRun.status, done.status, again.status]).to.deep.equal([200, 201, 409]);
    for (const res of [dryRun, done, again]) expectDocumented('POST', '/v2/admin/devices/import', res);
  });

  it('PUT /v2/device/message/{topic} with the levels in one encoded segment, as the explorer sends them', async () => {
    const res = await asSensor('PUT', '/v2/device/message/home%2Flamp', { body: 'ON' });
    expect(res.status).to.equal(200);
    expect(res.body.message).to.equal('published to @msg/home/lamp');
    expectDocumented('PUT', '/v2/device/message/{topic}', res);
  });
});

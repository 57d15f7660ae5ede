import { expect } from 'chai';
import { openApiDocument } from '../../../src/http/openapi/document';
import { aDevice, TestDevice } from '../../helpers/devices';
import { HttpResponse } from '../../helpers/http';
import { expectDocumentedResponse, OpenApiDocument, schemaValidator, SchemaValidator } from '../../helpers/openapi';
import { Stack, startStack } from '../../helpers/stack';

const doc = openApiDocument() as unknown as OpenApiDocument;
const API = '/v2/feed/api/v1';

describe('real responses of the KairosDB endpoints match the OpenAPI document', () => {
  let stack: Stack;
  let device: TestDevice;
  let readToken: string;
  let validator: SchemaValidator;
  const documented = (method: string, path: string, res: HttpResponse) => expectDocumentedResponse(doc, validator, { method, path }, res);
  const as = (auth: string) => ({ authorization: auth });

  before(async () => {
    validator = schemaValidator(doc);
    stack = await startStack();
    device = await aDevice(stack);
    const token = await stack.admin('POST', '/v2/admin/tokens', { body: { projectid: device.projectid, scope: 'read' } });
    documented('POST', '/v2/admin/tokens', token);
    readToken = token.body.token;
  });
  after(() => stack.stop());

  it('GET /datapoints/query, its answer and its 400', async () => {
    const query = encodeURIComponent(JSON.stringify({ start_relative: { value: 1, unit: 'hours' }, metrics: [{ name: device.deviceid }] }));
    const ok = await stack.http('GET', `${API}/datapoints/query?query=${query}`, { headers: as(device.auth) });
    const bad = await stack.http('GET', `${API}/datapoints/query`, { headers: as(device.auth) });
    expect([ok.status, bad.status]).to.deep.equal([200, 400]);
    documented('GET', `${API}/datapoints/query`, ok);
    documented('GET', `${API}/datapoints/query`, bad);
  });

  it('POST /datapoints/delete, its 204 and its 403 READ_ONLY_TOKEN', async () => {
    const body = { start_absolute: 0, metrics: [{ name: device.deviceid }] };
    const ok = await stack.http('POST', `${API}/datapoints/delete`, { headers: as(device.auth), body });
    const refused = await stack.http('POST', `${API}/datapoints/delete`, { headers: as(`Bearer ${readToken}`), body });
    expect([ok.status, refused.status]).to.deep.equal([204, 403]);
    documented('POST', `${API}/datapoints/delete`, ok);
    documented('POST', `${API}/datapoints/delete`, refused);
  });

  it('DELETE /metric/{metric}', async () => {
    const res = await stack.http('DELETE', `${API}/metric/${device.deviceid}`, { headers: as(device.auth) });
    expect(res.status).to.equal(204);
    documented('DELETE', `${API}/metric/{metric}`, res);
  });

  it('GET /health/check and /health/status', async () => {
    const check = await stack.http('GET', `${API}/health/check`, { headers: as(`Bearer ${readToken}`) });
    const status = await stack.http('GET', `${API}/health/status`, { headers: as(`Bearer ${readToken}`) });
    expect([check.status, status.status]).to.deep.equal([204, 200]);
    documented('GET', `${API}/health/check`, check);
    documented('GET', `${API}/health/status`, status);
  });

  it('GET /features and /features/{feature}, and its 404', async () => {
    const all = await stack.http('GET', `${API}/features`, { headers: as(device.auth) });
    const one = await stack.http('GET', `${API}/features/group_by`, { headers: as(device.auth) });
    const unknown = await stack.http('GET', `${API}/features/nothing`, { headers: as(device.auth) });
    expect([all.status, one.status, unknown.status]).to.deep.equal([200, 200, 404]);
    documented('GET', `${API}/features`, all);
    documented('GET', `${API}/features/{feature}`, one);
    documented('GET', `${API}/features/{feature}`, unknown);
  });
});

import { expect } from 'chai';
import { openApiDocument } from '../../../src/http/openapi/document';
import { aDevice } from '../../helpers/devices';
import { httpClient, HttpClient } from '../../helpers/http';
import { expectDocumentedResponse, OpenApiDocument, schemaValidator, SchemaValidator } from '../../helpers/openapi';
import { Stack, startStack } from '../../helpers/stack';

const doc = openApiDocument() as unknown as OpenApiDocument;

describe('operator and audit answers match the OpenAPI document', () => {
  let stack: Stack;
  let validator: SchemaValidator;
  const expectDocumented = (method: string, path: string, res: Awaited<ReturnType<HttpClient>>) =>
    expectDocumentedResponse(doc, validator, { method, path }, res);

  before(async () => {
    validator = schemaValidator(doc);
    stack = await startStack();
  });
  after(() => stack.stop());

  it('creates, lists, reads, rotates and deletes an operator; says who calls; reads the audit log', async () => {
    const created = await stack.admin('POST', '/v2/admin/operators', { body: { name: 'alice', role: 'operator', projects: ['home'] } });
    const list = await stack.admin('GET', '/v2/admin/operators');
    const one = await stack.admin('GET', '/v2/admin/operators/alice');
    const rotated = await stack.admin('POST', '/v2/admin/operators/alice/key');
    const me = await httpClient(stack.baseUrl, { authorization: `Bearer ${rotated.body.key}` })('GET', '/v2/admin/me');
    const audit = await stack.admin('GET', '/v2/admin/audit?limit=10');
    const removed = await stack.admin('DELETE', '/v2/admin/operators/alice');
    const missing = await stack.admin('DELETE', '/v2/admin/operators/alice');

    expect([created.status, list.status, one.status, rotated.status, me.status, audit.status, removed.status, missing.status])
      .to.deep.equal([201, 200, 200, 200, 200, 200, 204, 404]);
    expectDocumented('POST', '/v2/admin/operators', created);
    expectDocumented('GET', '/v2/admin/operators', list);
    expectDocumented('GET', '/v2/admin/operators/{name}', one);
    expectDocumented('POST', '/v2/admin/operators/{name}/key', rotated);
    expectDocumented('GET', '/v2/admin/me', me);
    expectDocumented('GET', '/v2/admin/audit', audit);
    expectDocumented('DELETE', '/v2/admin/operators/{name}', missing);
  });

  it('the 403s of a viewer and of a project out of reach are documented', async () => {
    const device = await aDevice(stack);
    const made = await stack.admin('POST', '/v2/admin/operators', { body: { name: 'vera', role: 'viewer', projects: ['elsewhere'] } });
    const vera = httpClient(stack.baseUrl, { authorization: `Bearer ${made.body.key}` });

    const role = await vera('DELETE', `/v2/admin/devices/${device.deviceid}`);
    const project = await vera('GET', `/v2/admin/devices/${device.deviceid}`);

    expect([role.status, project.status]).to.deep.equal([403, 403]);
    expectDocumented('DELETE', '/v2/admin/devices/{deviceid}', role);
    expectDocumented('GET', '/v2/admin/devices/{deviceid}', project);
  });
});

import { expect } from 'chai';
import { ERROR_STATUS } from '../../../src/core/errors';
import { openApiDocument } from '../../../src/http/openapi/document';
import { documentedRoutes, OpenApiDocument, registeredRoutes, schemaValidator } from '../../helpers/openapi';
import { Stack, startStack } from '../../helpers/stack';

const doc = openApiDocument() as unknown as OpenApiDocument;

describe('the OpenAPI document', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('documents every route the app registers, with its method', () => {
    const registered = registeredRoutes(stack.server.app);
    const missing = registered.filter((r) => !documentedRoutes(doc).includes(r));
    expect(registered.length).to.be.greaterThan(30);
    expect(missing, 'routes to document in src/http/openapi/*-paths.ts').to.deep.equal([]);
  });

  it('documents no operation the app does not have', () => {
    const registered = registeredRoutes(stack.server.app);
    const extra = documentedRoutes(doc).filter((r) => !registered.includes(r));
    expect(extra, 'documented operations with no route').to.deep.equal([]);
  });

  it('is valid OpenAPI 3.1', async () => {
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(JSON.stringify(doc)));
    expect(validator.version).to.equal('3.1');
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)).to.deep.equal([]);
    expect(result.valid).to.equal(true);
  });

  it('is served at /openapi.json, the same document', async () => {
    const res = await stack.http('GET', '/openapi.json');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    expect(res.body).to.deep.equal(JSON.parse(JSON.stringify(doc)));
  });

  it('has one error schema naming every code of src/core/errors.ts', () => {
    const error = doc.components.schemas.Error as { properties: { code: { enum: string[] } }; required: string[] };
    expect(error.properties.code.enum).to.have.members(Object.keys(ERROR_STATUS));
    expect(error.required).to.have.members(['status', 'code', 'message', 'requestId']);
  });

  it('gives every operation a unique operationId', () => {
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((operation) => operation.operationId));
    expect(ids).to.have.lengthOf(documentedRoutes(doc).length);
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('has schemas strict enough to refuse a wrong body', () => {
    const validator = schemaValidator(doc);
    expect(validator.problems({ $ref: '#/components/schemas/Shadow' }, { status: 200, deviceid: 'x', data: {} })).to.not.be.empty;
    expect(validator.problems({ $ref: '#/components/schemas/Error' }, { status: 400, code: 'NO_SUCH_CODE', message: 'm', requestId: 'r' }))
      .to.not.be.empty;
  });

  it('has examples that its own schemas accept', () => {
    const validator = schemaValidator(doc);
    let checked = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const media = [
          ...Object.values(operation.requestBody?.content ?? {}),
          ...Object.values(operation.responses).flatMap((r) => Object.values(r.content ?? {})),
        ];
        for (const m of media) {
          if (!m.schema) continue;
          const examples = [
            ...(m.example === undefined ? [] : [m.example]),
            ...Object.values(m.examples ?? {}).map((e) => e.value),
          ];
          for (const example of examples) {
            expect(validator.problems(m.schema, example), `${method} ${path}: ${JSON.stringify(example)}`).to.deep.equal([]);
            checked++;
          }
        }
      }
    }
    expect(checked).to.be.greaterThan(100);
  });
});

import Ajv2020 from 'ajv/dist/2020';
import { laneOperations } from '../../src/http/device-lane';
import addFormats from 'ajv-formats';
import type Router from '@koa/router';
import { expect } from 'chai';
import type Koa from 'koa';
import { HttpResponse } from './http';

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, object> };
}

export interface OpenApiMediaType {
  schema?: object;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}

export interface OpenApiOperation {
  operationId: string;
  responses: Record<string, { content?: Record<string, OpenApiMediaType> }>;
  requestBody?: { content: Record<string, OpenApiMediaType> };
}

export const DOCUMENTED_METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

/**
 * Every route the HTTP server serves (the Device API lane's and the app's), as `METHOD /openapi/path`: the @koa/router instances are found through the
 * `router` property @koa/router puts on its `routes()` middleware, and their `stack` layers name methods and paths.
 * `router.use()` layers have no methods and are skipped; HEAD, which @koa/router adds to every GET, is left out
 * (OpenAPI has no separate HEAD operations here; the document says HEAD works wherever GET does).
 */
export function registeredRoutes(app: Koa): string[] {
  // The Device API's lane (src/http/device-lane.ts) serves its routes before the app.
  const routes = new Set<string>(laneOperations().map((operation) => {
    const [method, path] = operation.split(' ');
    return `${method} ${openApiPath(path)}`;
  }));
  for (const middleware of app.middleware) {
    const router = (middleware as { router?: Router }).router;
    if (!router) continue;
    for (const layer of router.stack) {
      for (const method of layer.methods) {
        if (method === 'HEAD') continue;
        if (typeof layer.path !== 'string') throw new Error(`a ${method} route with a RegExp path cannot be documented`);
        routes.add(`${method} ${openApiPath(layer.path)}`);
      }
    }
  }
  return [...routes].sort();
}

/**
 * `/devices/:deviceid` -> `/devices/{deviceid}`; the wildcard `/message/*topic` (one or more levels) -> `/message/{topic}`,
 * since an OpenAPI path parameter holds one segment (the document says levels may be sent `%2F`-encoded).
 */
export function openApiPath(koaPath: string): string {
  const path = koaPath.replace(/[:*]([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
  if (/[:*()?+]/.test(path)) throw new Error(`route ${koaPath}: path syntax the document cannot express`);
  return path;
}

/** Every operation of the document, as `METHOD /path`. */
export function documentedRoutes(doc: OpenApiDocument): string[] {
  const routes: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of DOCUMENTED_METHODS) if (item[method]) routes.push(`${method.toUpperCase()} ${path}`);
  }
  return routes.sort();
}

/** A JSON Schema 2020-12 validator (the dialect of OAS 3.1) that resolves `#/components/schemas/...` refs. */
export function schemaValidator(doc: OpenApiDocument) {
  // Strict, to catch a misspelt keyword, except for three sound JSON Schema idioms the document uses: union types,
  // `oneOf: [{required: [a]}, {required: [b]}]`, and open tuples (`[timestamp, value, ...]`).
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true, strictRequired: false, strictTuples: false });
  addFormats(ajv);
  // The document's components under an id, so each `$ref: #/components/schemas/X` resolves against them.
  ajv.addVocabulary(['components']);
  ajv.addSchema({ $id: 'urn:openpie:openapi', components: doc.components }, 'urn:openpie:openapi');
  const rebase = (schema: object): object =>
    JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"urn:openpie:openapi#/components/'));
  // Compiling is most of a check's time, and the document repeats its schemas (every error answer): each is compiled once.
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
  const validatorOf = (schema: object) => {
    const text = JSON.stringify(schema);
    let validate = compiled.get(text);
    if (!validate) compiled.set(text, (validate = ajv.compile(rebase(schema))));
    return validate;
  };
  return {
    /** The problems of `value` against `schema` (empty when it conforms). */
    problems(schema: object, value: unknown): string[] {
      const validate = validatorOf(schema);
      return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
    },
  };
}

export type SchemaValidator = ReturnType<typeof schemaValidator>;

/** Asserts that a real response is one the document lists for the operation, with a body its schema accepts. */
export function expectDocumentedResponse(
  doc: OpenApiDocument,
  validator: SchemaValidator,
  route: { method: string; path: string },
  res: HttpResponse,
): void {
  const operation = doc.paths[route.path]?.[route.method.toLowerCase()];
  expect(operation, `${route.method} ${route.path} is not documented`).to.exist;
  const documented = operation.responses[String(res.status)];
  expect(documented, `${route.method} ${route.path} answered ${res.status}, which is not documented`).to.exist;
  if (!documented.content) {
    expect(res.text, 'a response documented without content had a body').to.equal('');
    return;
  }
  const mediaType = (res.headers.get('content-type') ?? '').split(';')[0].trim();
  const content = documented.content[mediaType];
  expect(content, `${res.status} answered ${mediaType}, documented: ${Object.keys(documented.content).join(', ')}`).to.exist;
  if (content.schema) expect(validator.problems(content.schema, res.body), res.text).to.deep.equal([]);
}

import { LANDING_LINKS } from '../landing-router';
import { errorResponses } from './error-responses';
import { PUBLIC } from './security';
import { Operation, Paths } from './types';

const op = (id: string, summary: string, responses: Operation['responses'], extra: Partial<Operation> = {}): Operation => ({
  operationId: id,
  summary,
  tags: ['Documentation'],
  security: PUBLIC,
  responses,
  ...extra,
});

const html = { 200: { description: 'The explorer page.', content: { 'text/html': { schema: { type: 'string' } } } } };

/** This document and the trial explorer (src/http/docs-router.ts). */
export function docsPaths(): Paths {
  return {
    '/': {
      get: op('getLanding', 'The front door: links to the console, the explorer, this document and the docs', {
        200: {
          description: 'HTML for browsers (`Accept: text/html`), JSON for anything else (curl sends `*/*`).',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['service', 'version', 'links'],
                properties: { service: { const: 'openpie' }, version: { type: 'string' }, links: { type: 'object', additionalProperties: { type: 'string' } } },
              },
              example: { service: 'openpie', version: '0.1.0', links: { ...LANDING_LINKS } },
            },
            'text/html': { schema: { type: 'string' } },
          },
        },
      }),
    },
    '/docs': {
      get: op('listDocs', 'The documentation: README.md and docs/*.md', {
        200: { description: 'An HTML list of the documents (also at `/docs/`).', content: { 'text/html': { schema: { type: 'string' } } } },
      }),
    },
    '/docs/{file}': {
      get: op('getDoc', 'One document: a page for browsers, its Markdown source for anything else', {
        200: {
          description: 'HTML for browsers (`Accept: text/html`), the Markdown source for anything else (curl sends `*/*`). ' +
            '`pages.css` is the pages\' stylesheet.',
          content: { 'text/plain': { schema: { type: 'string' } }, 'text/html': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } } },
        },
        ...errorResponses(['ROUTE_NOT_FOUND']),
      }, {
        parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string' }, example: 'data-store.md' }],
      }),
    },
    '/docs/{folder}/{file}': {
      get: op('getDocInFolder', 'One document of a folder of docs/ (works-with/): as /docs/{file}', {
        200: {
          description: 'HTML for browsers (`Accept: text/html`), the Markdown source for anything else.',
          content: { 'text/plain': { schema: { type: 'string' } }, 'text/html': { schema: { type: 'string' } } },
        },
        ...errorResponses(['ROUTE_NOT_FOUND']),
      }, {
        parameters: [
          { name: 'folder', in: 'path', required: true, schema: { type: 'string' }, example: 'works-with' },
          { name: 'file', in: 'path', required: true, schema: { type: 'string' }, example: 'node-red.md' },
        ],
      }),
    },
    '/openapi.json': {
      get: op('getOpenApiDocument', 'This OpenAPI 3.1 document', {
        200: { description: 'The document.', content: { 'application/json': { schema: { type: 'object' } } } },
      }),
    },
    '/trial': {
      get: op('getTrialExplorer', 'The interactive explorer (Swagger UI) of this document', html, {
        description: 'Also at `/trial/`. Press **Authorize**, paste device credentials or a token, then try any call.',
      }),
    },
    '/trial/{file}': {
      get: op('getTrialAsset', 'Static files of the explorer (swagger-ui-dist)', {
        200: {
          description: 'The file, cached by the browser (ETag, Cache-Control); `openapi.json` is this document with each ' +
            'operation once, at its `/v2` path (not cached).',
          content: {
            'text/javascript': { schema: { type: 'string' } },
            'text/css': { schema: { type: 'string' } },
            'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } },
            'application/json': { schema: { type: 'object' } },
          },
        },
        ...errorResponses(['ROUTE_NOT_FOUND']),
      }, {
        parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string' }, example: 'swagger-ui.css' }],
      }),
    },
  };
}

import { ErrorCode } from '../../core/errors';
import { DATATAG_LIMITS } from '../../datatags/codecs';
import { jsonBody, success } from './content';
import { errorResponses, JSON_BODY_ERRORS } from './error-responses';
import { Duration } from './retention-paths';
import { ADMIN_SECURITY } from './security';
import { Operation, Parameter, Paths, Schema, schemaRef } from './types';

// An operator's role or projects may not reach the call (docs/operations.md "Operators, roles and the audit log").
const ADMIN_AUTH_ERRORS: ErrorCode[] = ['MISSING_CREDENTIALS', 'INVALID_CREDENTIALS', 'ROLE_FORBIDDEN', 'PROJECT_FORBIDDEN'];

const PATH_PATTERN = '^[A-Za-z0-9_]+(\\.[A-Za-z0-9_]+)*$';
const text: Schema = { type: 'string', maxLength: DATATAG_LIMITS.maxTextLength };

/** Schemas of datatags (components.schemas). */
export const DATATAG_SCHEMAS: Readonly<Record<string, Schema>> = {
  Datatag: {
    type: 'object',
    description: 'One datatag (netpie reference §7.3): which shadow path a device records, as what, under which attr, for how long.',
    required: ['path', 'type', 'attr', 'ttl'],
    additionalProperties: false,
    properties: {
      path: { type: 'string', maxLength: 128, pattern: PATH_PATTERN, description: 'The shadow path, nested with dots (`env.temp`).' },
      type: { enum: ['number', 'boolean'], description: 'What the value is cast to (booleans are recorded as 1/0); `string` is refused: the data store keeps numbers.' },
      attr: { type: 'string', maxLength: 128, pattern: PATH_PATTERN, description: 'The `attr` tag of the points: what queries name.' },
      ttl: { ...Duration, description: 'How long each point is kept, from its own time.' },
      expression: { type: 'string', description: 'Over `$.value` (the value cast to `type`) and constants; its result is cast again.' },
      name: { ...text, description: 'Absent: the path.' },
      description: text,
      unit: text,
      enabled: { type: 'boolean', default: true, description: '`false`: records nothing, keeps its points.' },
    },
  },
  DatatagList: { type: 'array', maxItems: DATATAG_LIMITS.maxTags, items: schemaRef('Datatag'), description: 'Attrs are unique.' },
  DatatagToggle: { type: 'object', required: ['enabled'], additionalProperties: false, properties: { enabled: { type: 'boolean' } } },
  DatatagPointValue: {
    type: 'object', required: ['value'], additionalProperties: false,
    properties: { value: { type: ['number', 'boolean', 'string'], description: 'Cast to the tag\'s type, as written values are.' } },
  },
  DatatagPoint: {
    type: 'object',
    required: ['metric', 'tags', 'timestamp', 'value'],
    properties: {
      metric: { type: 'string' }, tags: { type: 'object', additionalProperties: { type: 'string' } },
      timestamp: { type: 'integer' }, value: { type: 'number' }, expiresAt: { type: 'integer', description: 'Absent: kept until deleted.' },
    },
  },
};

const DEVICE_ID = '5d0c6a52-3b1e-4f0a-9d39-2c8f1a7b9e10';
const TAG = { path: 'env.temp', type: 'number', attr: 'temp', ttl: '30d', unit: 'C', name: 'env.temp', enabled: true };
const scopeId: Schema = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' };
const deviceParameter: Parameter = { name: 'deviceid', in: 'path', required: true, schema: { type: 'string' }, example: DEVICE_ID };
const groupParameters: Parameter[] = [
  { name: 'projectid', in: 'path', required: true, schema: scopeId, example: 'home' },
  { name: 'groupid', in: 'path', required: true, schema: scopeId, example: 'sensors' },
];
const attrParameter: Parameter = { name: 'attr', in: 'path', required: true, schema: { type: 'string', pattern: PATH_PATTERN }, example: 'temp' };
const timestampParameter: Parameter = { name: 'timestamp', in: 'path', required: true, schema: { type: 'integer', minimum: 0 }, example: 1700000000000 };
const op = (id: string, fields: Omit<Operation, 'operationId' | 'tags' | 'security'>): Operation => ({
  operationId: id, tags: ['Admin API'], security: ADMIN_SECURITY, ...fields,
});

/** The list, the toggle and delete feed of one owner: a device, or a group's default. */
function tagOperations(kind: 'Device' | 'Group', parameters: Parameter[], notFound: ErrorCode[]): Paths {
  const who = kind === 'Device' ? 'the device\'s own datatags' : 'the group\'s default datatags (for its devices without their own)';
  const base = kind === 'Device' ? '/v2/admin/devices/{deviceid}/datatags' : '/v2/admin/projects/{projectid}/groups/{groupid}/datatags';
  return {
    [base]: {
      get: op(`get${kind}Datatags`, {
        summary: `Read ${who}`,
        description: 'Ordered by attr; empty when there are none.',
        parameters,
        responses: { ...success(200, 'The datatags.', 'DatatagList', [TAG]), ...errorResponses(ADMIN_AUTH_ERRORS, notFound) },
      }),
      put: op(`put${kind}Datatags`, {
        summary: `Replace ${who}`,
        description: 'The next write records exactly the enabled tags (docs/data-store.md "Datatags"); an empty list ' +
          'removes them all, and writes go back to the schema\'s rule.',
        parameters,
        requestBody: { required: true, content: jsonBody('DatatagList', [TAG]) },
        responses: { ...success(200, 'The datatags as stored, defaults filled in.', 'DatatagList', [TAG]), ...errorResponses(ADMIN_AUTH_ERRORS, JSON_BODY_ERRORS, notFound) },
      }),
    },
    [`${base}/{attr}`]: {
      patch: op(`toggle${kind}Datatag`, {
        summary: 'Enable or disable one datatag',
        parameters: [...parameters, attrParameter],
        requestBody: { required: true, content: jsonBody('DatatagToggle', { enabled: false }) },
        responses: { ...success(200, 'The datatag.', 'Datatag', { ...TAG, enabled: false }), ...errorResponses(ADMIN_AUTH_ERRORS, JSON_BODY_ERRORS, notFound, ['INVALID_QUERY', 'DATATAG_NOT_FOUND']) },
      }),
      delete: op(`delete${kind}Datatag`, {
        summary: kind === 'Device' ? 'Delete feed: the datatag and its points' : 'Delete one datatag of the default (the devices keep their points)',
        parameters: [...parameters, attrParameter],
        responses: { 204: { description: 'Deleted.' }, ...errorResponses(ADMIN_AUTH_ERRORS, notFound, ['INVALID_QUERY', 'DATATAG_NOT_FOUND']) },
      }),
    },
  };
}

/** Datatags (issue 23 §1) of the admin API. */
export function datatagPaths(): Paths {
  const device = [deviceParameter];
  const pointNotFound: ErrorCode[] = ['INVALID_QUERY', 'DEVICE_NOT_FOUND', 'DATATAG_NOT_FOUND'];
  return {
    ...tagOperations('Device', device, ['DEVICE_NOT_FOUND']),
    ...tagOperations('Group', groupParameters, ['INVALID_QUERY']),
    '/v2/admin/devices/{deviceid}/datatags/{attr}/clear': {
      post: op('clearDatatagFeed', {
        summary: 'Clear feed: delete every point of one datatag, keeping the tag',
        description: 'The tag is the device\'s own or its group\'s.',
        parameters: [...device, attrParameter],
        responses: { 204: { description: 'Cleared.' }, ...errorResponses(ADMIN_AUTH_ERRORS, pointNotFound) },
      }),
    },
    '/v2/admin/devices/{deviceid}/datatags/{attr}/points/{timestamp}': {
      put: op('putDatatagPoint', {
        summary: 'Set the value of one point (edit it, or add it)',
        description: 'The value is cast to the tag\'s type; the point is kept for the tag\'s ttl from its timestamp.',
        parameters: [...device, attrParameter, timestampParameter],
        requestBody: { required: true, content: jsonBody('DatatagPointValue', { value: 21.5 }) },
        responses: {
          ...success(200, 'The point as written.', 'DatatagPoint', { metric: DEVICE_ID, tags: { attr: 'temp' }, timestamp: 1700000000000, value: 21.5, expiresAt: 1702592000000 }),
          ...errorResponses(ADMIN_AUTH_ERRORS, JSON_BODY_ERRORS, pointNotFound),
        },
      }),
      delete: op('deleteDatatagPoint', {
        summary: 'Delete one point',
        description: 'No error when there is no point at that time.',
        parameters: [...device, attrParameter, timestampParameter],
        responses: { 204: { description: 'Deleted.' }, ...errorResponses(ADMIN_AUTH_ERRORS, pointNotFound) },
      }),
    },
  };
}

import { ErrorCode } from '../../core/errors';
import { jsonBody, success } from './content';
import { errorResponses } from './error-responses';
import { ADMIN_SECURITY } from './security';
import { Operation, Parameter, Paths, Schema, schemaRef } from './types';

const ADMIN_AUTH_ERRORS: ErrorCode[] = ['MISSING_CREDENTIALS', 'INVALID_CREDENTIALS', 'ROLE_FORBIDDEN'];
const BODY_ERRORS: ErrorCode[] = ['INVALID_JSON', 'INVALID_BODY', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];

const OPERATOR = { name: 'alice', role: 'operator', projects: ['home'], created: 1700000000000 };
const KEY = 'opk.alice.Yq3vQ0a1Lb8xR2nT5mW7pK9sD4fG6hJ0a9FzC3eB7uN';
const ENTRY = {
  at: 1700000000000, actor: 'alice', role: 'operator', method: 'POST', route: '/v2/admin/devices/:deviceid/token',
  path: '/v2/admin/devices/5d0c6a52-3b1e-4f0a-9d39-2c8f1a7b9e10/token',
  targets: { deviceid: '5d0c6a52-3b1e-4f0a-9d39-2c8f1a7b9e10', projectid: 'home', groupid: 'lights' }, source: '192.0.2.7', status: 200,
};

const Role: Schema = { type: 'string', enum: ['viewer', 'operator', 'admin'] };
const Projects: Schema = {
  oneOf: [{ const: '*' }, { type: 'array', minItems: 1, maxItems: 100, items: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' } }],
  description: '`*` for every project, or the projects named.',
};
const operatorProps = {
  name: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,63}$' }, role: Role, projects: Projects, created: { type: 'integer' },
};

/** Schemas of operators and the audit log (components.schemas). */
export const OPERATOR_SCHEMAS: Readonly<Record<string, Schema>> = {
  Operator: { type: 'object', required: ['name', 'role', 'projects', 'created'], additionalProperties: false, properties: operatorProps },
  IssuedOperator: {
    type: 'object', required: ['name', 'role', 'projects', 'created', 'key'], additionalProperties: false,
    properties: { ...operatorProps, key: { type: 'string', description: 'The operator key, shown in this answer only.' } },
  },
  OperatorList: { type: 'object', required: ['operators'], additionalProperties: false, properties: { operators: { type: 'array', items: schemaRef('Operator') } } },
  CreateOperatorRequest: {
    type: 'object', required: ['name', 'role'], additionalProperties: false,
    properties: { name: operatorProps.name, role: Role, projects: Projects },
  },
  Caller: { type: 'object', required: ['name', 'role', 'projects'], additionalProperties: false, properties: { name: { type: 'string' }, role: Role, projects: Projects } },
  AuditLog: {
    type: 'object', required: ['entries'], additionalProperties: false,
    properties: {
      entries: {
        type: 'array',
        items: {
          type: 'object', required: ['at', 'actor', 'role', 'method', 'route', 'path', 'targets', 'source', 'status'], additionalProperties: false,
          properties: {
            at: { type: 'integer' }, actor: { type: 'string', description: 'The operator, or `bootstrap` for ADMIN_TOKEN.' }, role: Role,
            method: { type: 'string' }, route: { type: 'string' }, path: { type: 'string' },
            targets: { type: 'object', additionalProperties: { type: 'string' } }, source: { type: 'string' }, status: { type: 'integer' },
          },
        },
      },
    },
  },
};

const nameParameter: Parameter = { name: 'name', in: 'path', required: true, schema: { type: 'string' }, example: 'alice' };

const op = (id: string, fields: Omit<Operation, 'operationId' | 'tags' | 'security'>): Operation => ({
  operationId: id, tags: ['Admin API'], security: ADMIN_SECURITY, ...fields,
});

/** Operator accounts, the caller, and the audit log (issue 20 §5; docs/operations.md "Operators, roles and the audit log"). */
export function operatorPaths(): Paths {
  return {
    '/v2/admin/me': {
      get: op('whoAmI', {
        summary: 'Who is calling',
        description: 'The operator the key belongs to, or `bootstrap` (ADMIN_TOKEN), with its role and projects.',
        responses: { ...success(200, 'The caller.', 'Caller', { name: 'alice', role: 'operator', projects: ['home'] }), ...errorResponses(ADMIN_AUTH_ERRORS) },
      }),
    },
    '/v2/admin/operators': {
      post: op('createOperator', {
        summary: 'Create an operator (admin)',
        description: 'Its key is in this answer only (`Cache-Control: no-store`); the service keeps a keyed digest. An `admin` has every project.',
        requestBody: { required: true, content: jsonBody('CreateOperatorRequest', { name: 'alice', role: 'operator', projects: ['home'] }) },
        responses: { ...success(201, 'The operator and its key.', 'IssuedOperator', { ...OPERATOR, key: KEY }), ...errorResponses(ADMIN_AUTH_ERRORS, BODY_ERRORS, ['OPERATOR_TAKEN']) },
      }),
      get: op('listOperators', {
        summary: 'List operators (admin)',
        responses: { ...success(200, 'Every operator, by name; never a key.', 'OperatorList', { operators: [OPERATOR] }), ...errorResponses(ADMIN_AUTH_ERRORS) },
      }),
    },
    '/v2/admin/operators/{name}': {
      get: op('getOperator', {
        summary: 'Read an operator (admin)',
        parameters: [nameParameter],
        responses: { ...success(200, 'The operator; never its key.', 'Operator', OPERATOR), ...errorResponses(ADMIN_AUTH_ERRORS, ['INVALID_QUERY', 'OPERATOR_NOT_FOUND']) },
      }),
      delete: op('deleteOperator', {
        summary: 'Delete an operator (admin)',
        description: 'Its key is refused from the next call on, on every node.',
        parameters: [nameParameter],
        responses: { 204: { description: 'Deleted.' }, ...errorResponses(ADMIN_AUTH_ERRORS, ['INVALID_QUERY', 'OPERATOR_NOT_FOUND']) },
      }),
    },
    '/v2/admin/operators/{name}/key': {
      post: op('rotateOperatorKey', {
        summary: 'Give an operator a new key (admin)',
        description: 'The old key is refused at once; the new one is in this answer only.',
        parameters: [nameParameter],
        responses: { ...success(200, 'The operator and its new key.', 'IssuedOperator', { ...OPERATOR, key: KEY }), ...errorResponses(ADMIN_AUTH_ERRORS, ['INVALID_QUERY', 'OPERATOR_NOT_FOUND']) },
      }),
    },
    '/v2/admin/audit': {
      get: op('readAuditLog', {
        summary: 'Read the audit log (admin)',
        description: 'Every admin change (any method but GET), allowed or refused, newest first; kept AUDIT_RETENTION_DAYS.',
        parameters: [
          { name: 'since', in: 'query', required: false, description: 'Epoch ms or ISO 8601 time.', schema: { type: 'string' } },
          { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
          { name: 'actor', in: 'query', required: false, description: 'An operator name, or `bootstrap`.', schema: { type: 'string' } },
        ],
        responses: { ...success(200, 'The entries.', 'AuditLog', { entries: [ENTRY] }), ...errorResponses(ADMIN_AUTH_ERRORS, ['INVALID_QUERY']) },
      }),
    },
  };
}

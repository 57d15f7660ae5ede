import { ErrorCode } from '../../core/errors';
import { jsonBody, success } from './content';
import { errorResponses } from './error-responses';
import { ADMIN_SECURITY } from './security';
import { Operation, Parameter, Paths, Schema, schemaRef } from './types';

// An operator's role or projects may not reach the call (docs/operations.md "Operators, roles and the audit log").
const ADMIN_AUTH_ERRORS: ErrorCode[] = ['MISSING_CREDENTIALS', 'INVALID_CREDENTIALS', 'ROLE_FORBIDDEN', 'PROJECT_FORBIDDEN'];
const BODY_ERRORS: ErrorCode[] = ['INVALID_JSON', 'INVALID_BODY', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];
const KEY_ERRORS: ErrorCode[] = ['INVALID_QUERY', 'APPLICATION_NOT_FOUND'];

const APPLICATION = {
  key: '0b8e2f4c-6a1d-4c3e-9f70-5d2a8b1c4e96', name: 'node-red flows', projectid: 'home', groups: ['lights'], enabled: true,
  created: 1700000000000,
};
const SECRET = 'Yq3vQ0a1Lb8xR2nT5mW7pK9sD4fG6hJ0a9FzC3eB7uN';
const SHOWN_ONCE = ' The secret is in this answer only (`Cache-Control: no-store`); the service keeps its keyed digest, so a lost ' +
  'secret is rotated, never shown again.';

const ScopeId: Schema = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' };
const Name: Schema = { type: 'string', maxLength: 128, description: 'For people; no control characters.' };
const Groups: Schema = {
  type: 'array', maxItems: 100, uniqueItems: true, items: ScopeId,
  description: 'Groups of the project the key reaches; empty: every group of the project.',
};
const applicationProps = {
  key: { type: 'string', format: 'uuid', description: 'The MQTT username of the Flow Channel; public.' },
  name: Name, projectid: ScopeId, groups: Groups, enabled: { type: 'boolean' }, created: { type: 'integer' },
};
const REQUIRED = ['key', 'name', 'projectid', 'groups', 'enabled', 'created'];

/** Schemas of application keys (components.schemas). */
export const APPLICATION_SCHEMAS: Readonly<Record<string, Schema>> = {
  Application: { type: 'object', required: REQUIRED, additionalProperties: false, properties: applicationProps },
  IssuedApplication: {
    type: 'object', required: [...REQUIRED, 'secret'], additionalProperties: false,
    properties: { ...applicationProps, secret: { type: 'string', description: 'The MQTT password, shown in this answer only.' } },
  },
  ApplicationList: {
    type: 'object', required: ['applications', 'total'], additionalProperties: false,
    properties: { applications: { type: 'array', items: schemaRef('Application') }, total: { type: 'integer', minimum: 0 } },
  },
  CreateApplicationRequest: {
    type: 'object', required: ['projectid'], additionalProperties: false, properties: { projectid: ScopeId, name: Name, groups: Groups },
  },
  UpdateApplicationRequest: {
    type: 'object', additionalProperties: false, properties: { name: Name, groups: Groups, enabled: { type: 'boolean' } },
  },
};

const keyParameter: Parameter = { name: 'key', in: 'path', required: true, schema: { type: 'string', format: 'uuid' }, example: APPLICATION.key };

const op = (id: string, fields: Omit<Operation, 'operationId' | 'tags' | 'security'>): Operation => ({
  operationId: id, tags: ['Admin API'], security: ADMIN_SECURITY, ...fields,
});

/** Application keys (issue 22 §1; docs/operations.md "Application keys"): the Flow Channel's MQTT log-in. */
export function applicationPaths(): Paths {
  return {
    '/v2/admin/applications': {
      post: op('createApplication', {
        summary: 'Create an application key (operator)',
        description: 'A key of one project, reaching the groups named (none: every group). MQTT log-in: username = `key`, password = `secret`.' + SHOWN_ONCE,
        requestBody: { required: true, content: jsonBody('CreateApplicationRequest', { projectid: 'home', name: 'node-red flows', groups: ['lights'] }) },
        responses: {
          ...success(201, 'The new key and its secret, shown this once.', 'IssuedApplication', { ...APPLICATION, secret: SECRET }),
          ...errorResponses(ADMIN_AUTH_ERRORS, BODY_ERRORS),
        },
      }),
      get: op('listApplications', {
        summary: 'List application keys (viewer)',
        description: 'Of one project, or of every project the caller reaches; by project, then age. Never a secret.',
        parameters: [
          { name: 'projectid', in: 'query', required: false, schema: ScopeId },
          { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000 } },
          { name: 'offset', in: 'query', required: false, schema: { type: 'integer', minimum: 0, default: 0 } },
        ],
        responses: {
          ...success(200, 'A page of keys; `total` counts every match.', 'ApplicationList', { applications: [APPLICATION], total: 1 }),
          ...errorResponses(ADMIN_AUTH_ERRORS, ['INVALID_QUERY']),
        },
      }),
    },
    '/v2/admin/applications/{key}': {
      get: op('getApplication', {
        summary: 'Read an application key (viewer)',
        parameters: [keyParameter],
        responses: { ...success(200, 'The key; never its secret.', 'Application', APPLICATION), ...errorResponses(ADMIN_AUTH_ERRORS, KEY_ERRORS) },
      }),
      patch: op('updateApplication', {
        summary: 'Rename, rescope, disable or enable an application key (operator)',
        description: 'Disabling the key or changing its groups ends its MQTT connections on every node; a disabled key ' +
          'is refused with `APPLICATION_DISABLED`.',
        parameters: [keyParameter],
        requestBody: { required: true, content: jsonBody('UpdateApplicationRequest', { enabled: false }) },
        responses: {
          ...success(200, 'The key as changed.', 'Application', { ...APPLICATION, enabled: false }),
          ...errorResponses(ADMIN_AUTH_ERRORS, BODY_ERRORS, KEY_ERRORS),
        },
      }),
      delete: op('revokeApplication', {
        summary: 'Revoke an application key (operator)',
        description: 'The key is refused from now on, on every node, and its MQTT connections end.',
        parameters: [keyParameter],
        responses: { 204: { description: 'Revoked.' }, ...errorResponses(ADMIN_AUTH_ERRORS, KEY_ERRORS) },
      }),
    },
    '/v2/admin/applications/{key}/secret': {
      post: op('rotateApplicationSecret', {
        summary: 'Give an application key a new secret (operator)',
        description: 'The old secret is refused at once and the key\'s MQTT connections end.' + SHOWN_ONCE,
        parameters: [keyParameter],
        responses: {
          ...success(200, 'The key and its new secret, shown this once.', 'IssuedApplication', { ...APPLICATION, secret: SECRET }),
          ...errorResponses(ADMIN_AUTH_ERRORS, KEY_ERRORS),
        },
      }),
    },
  };
}

import { ErrorCode } from '../../core/errors';
import { jsonBody, success } from './content';
import { errorResponses, JSON_BODY_ERRORS } from './error-responses';
import { ADMIN_SECURITY } from './security';
import { Operation, Parameter, Paths, Schema } from './types';

const DEVICE_ID = '5d0c6a52-3b1e-4f0a-9d39-2c8f1a7b9e10';
// An operator's role or projects may not reach the call (docs/operations.md "Operators, roles and the audit log").
const ADMIN_AUTH_ERRORS: ErrorCode[] = ['MISSING_CREDENTIALS', 'INVALID_CREDENTIALS', 'ROLE_FORBIDDEN', 'PROJECT_FORBIDDEN'];

const op = (id: string, fields: Omit<Operation, 'operationId' | 'tags' | 'security'>): Operation => ({
  operationId: id,
  tags: ['Admin API'],
  security: ADMIN_SECURITY,
  ...fields,
});

const ScopeIdSchema: Schema = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' };
const deviceIdParameter: Parameter = { name: 'deviceid', in: 'path', required: true, schema: { type: 'string' }, example: DEVICE_ID };
const projectParameter: Parameter = { name: 'projectid', in: 'path', required: true, schema: ScopeIdSchema, example: 'home' };
const groupParameters: Parameter[] = [projectParameter, { name: 'groupid', in: 'path', required: true, schema: ScopeIdSchema, example: 'sensors' }];

const SCHEMA_EXAMPLE = {
  additionalProperties: false,
  properties: {
    tempF: { type: 'number', autofill: true, operation: { transform: { expression: '($.tempC * 1.8) + 32', dp: 2 } } },
    tempC: { type: 'number' },
    humid: { type: 'number', minimum: 0, maximum: 100 },
    place: { type: 'string', store: false },
  },
};

const QUOTA_REPORT_EXAMPLE = {
  projectid: 'home',
  month: '2025-01',
  resetsAt: '2025-02-01T00:00:00.000Z',
  quotas: {
    shadowOps: { used: 1234, limit: 500000 },
    expressionRuns: { used: 100, limit: null },
    triggerRuns: { used: 3, limit: 5000 },
    messages: { used: 5120, limit: 9000000 },
    apiCalls: { used: 88, limit: 800000 },
  },
};

const TRIGGERS_EXAMPLE = {
  enabled: true,
  trigger: [
    {
      id: 'hot',
      event: 'SHADOW.UPDATED',
      condition: '$NEW.temp > 30 && $PREV.temp <= 30',
      action: 'alert',
      context: { msg: 'bedroom at {{ $NEW.temp }} C', token: 'secret' },
    },
    { id: 'offline', event: 'DEVICE.STATUSCHANGED', condition: '$NEW.STATUS == 0', action: ['alert'] },
  ],
};
const WEBHOOK_EXAMPLE = {
  type: 'WEBHOOK',
  config: {
    method: 'POST',
    uri: 'https://hooks.example.com/alert?device={{$DEVICEID}}',
    header: { Authorization: 'Bearer {{context.token}}' },
    body: '{"text":"{{context.msg}}","temp":{{$NEW.temp}}}',
  },
};
const DELIVERY_EXAMPLE = {
  id: 42, at: 1700000000321, projectid: 'home', deviceid: DEVICE_ID, triggerid: 'hot', event: 'SHADOW.UPDATED',
  hook: 'alert', outcome: 'delivered', target: 'POST https://hooks.example.com/alert?device={{$DEVICEID}}',
  attempts: 1, status: 200, durationMs: 35,
};
const hookNameParameter: Parameter = { name: 'name', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' }, example: 'alert' };

/** Schema routes of one owner: a device, or a group's default. */
/** The console's read of a schema that may not exist: 204 instead of 404 SCHEMA_NOT_FOUND (issue 24 §4). */
const optionalSchemaParameter: Parameter = {
  name: 'optional', in: 'query', required: false, schema: { type: 'boolean', default: false },
  description: '`true`: answer 204 when there is no schema, instead of 404 `SCHEMA_NOT_FOUND`.',
};

function schemaOperations(kind: 'Device' | 'Group', parameters: Parameter[], notFound: ErrorCode[]) {
  const who = kind === 'Device' ? 'the device\'s own schema' : 'the group\'s default schema (for its devices without one)';
  return {
    get: op(`get${kind}Schema`, {
      summary: `Read ${who}`,
      parameters: [...parameters, optionalSchemaParameter],
      responses: {
        ...success(200, 'The schema.', 'ShadowSchema', SCHEMA_EXAMPLE),
        204: { description: 'With `optional=true`: there is none.' },
        ...errorResponses(ADMIN_AUTH_ERRORS, notFound, ['SCHEMA_NOT_FOUND']),
      },
    }),
    put: op(`put${kind}Schema`, {
      summary: `Set ${who}`,
      description: 'Replaces it; the next write follows it. Expressions are checked now: a syntax error, an unknown ' +
        'variable or function is a 400 naming the field.',
      parameters,
      requestBody: { required: true, content: jsonBody('ShadowSchema', SCHEMA_EXAMPLE) },
      responses: { ...success(200, 'The schema as stored.', 'ShadowSchema', SCHEMA_EXAMPLE), ...errorResponses(ADMIN_AUTH_ERRORS, JSON_BODY_ERRORS, notFound) },
    }),
    delete: op(`delete${kind}Schema`, {
      summary: `Remove ${who}`,
      parameters,
      responses: { 204: { description: 'Removed.' }, ...errorResponses(ADMIN_AUTH_ERRORS, notFound, ['SCHEMA_NOT_FOUND']) },
    }),
  };
}

/** Schemas, quotas, triggers, event hooks and the delivery log (issue 5 §6) under /v2/admin. */
export function automationPaths(): Paths {
  return {
    '/v2/admin/devices/{deviceid}/schema': schemaOperations('Device', [deviceIdParameter], ['DEVICE_NOT_FOUND']),
    '/v2/admin/projects/{projectid}/groups/{groupid}/schema': schemaOperations('Group', groupParameters, ['INVALID_QUERY']),
    '/v2/admin/devices/{deviceid}/triggers': {
      get: op('getDeviceTriggers', {
        summary: 'A device\'s triggers',
        description: 'A device without triggers has `{"enabled":true,"trigger":[]}`.',
        parameters: [deviceIdParameter],
        responses: { ...success(200, 'The triggers.', 'TriggerList', TRIGGERS_EXAMPLE), ...errorResponses(ADMIN_AUTH_ERRORS, ['DEVICE_NOT_FOUND']) },
      }),
      put: op('putDeviceTriggers', {
        summary: 'Replace a device\'s triggers',
        description: 'Conditions and templates are checked now, and every hook named in `action` must exist in the ' +
          'device\'s project. Triggers run after each applied shadow write (for a batch, its newest item) that did not ' +
          'say `trigger:false`, and on each MQTT status change.',
        parameters: [deviceIdParameter],
        requestBody: { required: true, content: jsonBody('TriggerList', TRIGGERS_EXAMPLE) },
        responses: { ...success(200, 'The triggers as stored, with their ids.', 'TriggerList', TRIGGERS_EXAMPLE), ...errorResponses(ADMIN_AUTH_ERRORS, JSON_BODY_ERRORS, ['DEVICE_NOT_FOUND']) },
      }),
      delete: op('deleteDeviceTriggers', {
        summary: 'Remove every trigger of a device',
        parameters: [deviceIdParameter],
        responses: { 204: { description: 'Removed (or there were none).' }, ...errorResponses(ADMIN_AUTH_ERRORS, ['DEVICE_NOT_FOUND']) },
      }),
    },
    '/v2/admin/projects/{projectid}/hooks': {
      get: op('listEventHooks', {
        summary: 'The event hooks of a project',
        parameters: [projectParameter],
        responses: { ...success(200, 'The hooks, by name.', 'HookList', { hooks: [{ name: 'alert', ...WEBHOOK_EXAMPLE }] }), ...errorResponses(ADMIN_AUTH_ERRORS, ['INVALID_QUERY']) },
      }),
    },
    '/v2/admin/projects/{projectid}/hooks/{name}': {
      get: op('getEventHook', {
        summary: 'One event hook',
        parameters: [projectParameter, hookNameParameter],
        responses: { ...success(200, 'The hook.', 'NamedEventHook', { name: 'alert', ...WEBHOOK_EXAMPLE }), ...errorResponses(ADMIN_AUTH_ERRORS, ['INVALID_QUERY', 'HOOK_NOT_FOUND']) },
      }),
      put: op('putEventHook', {
        summary: 'Create or replace an event hook',
        description: 'A WEBHOOK whose host is written as a loopback, private, link-local or other non-public address (or ' +
          '`localhost`) is refused unless WEBHOOK_ALLOW_HOSTS allows it; names are checked as they resolve, at each delivery.',
        parameters: [projectParameter, hookNameParameter],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/EventHook' },
              examples: {
                webhook: { summary: 'A webhook', value: WEBHOOK_EXAMPLE },
                message: { summary: 'A message to the device\'s group', value: { type: 'MESSAGE', config: { topic: '@msg/alerts', payload: '{{context.msg}}' } } },
              },
            },
          },
        },
        responses: {
          ...success(200, 'The hook as stored.', 'NamedEventHook', { name: 'alert', ...WEBHOOK_EXAMPLE }),
          ...errorResponses(ADMIN_AUTH_ERRORS, JSON_BODY_ERRORS, ['INVALID_QUERY', 'WEBHOOK_ADDRESS_REFUSED']),
        },
      }),
      delete: op('deleteEventHook', {
        summary: 'Remove an event hook',
        description: 'Triggers that name it log `skipped` deliveries until they are changed.',
        parameters: [projectParameter, hookNameParameter],
        responses: { 204: { description: 'Removed.' }, ...errorResponses(ADMIN_AUTH_ERRORS, ['INVALID_QUERY', 'HOOK_NOT_FOUND']) },
      }),
    },
    '/v2/admin/projects/{projectid}/deliveries': {
      get: op('listDeliveries', {
        summary: 'The delivery log of a project\'s triggers',
        description: 'Newest first; the newest 1000 entries of each project are kept. One entry per hook a fired trigger ' +
          'ran, or per trigger that could not fire (quota spent, condition error).',
        parameters: [
          projectParameter,
          { name: 'deviceid', in: 'query', required: false, schema: { type: 'string' } },
          { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
        ],
        responses: { ...success(200, 'The entries.', 'DeliveryList', { deliveries: [DELIVERY_EXAMPLE] }), ...errorResponses(ADMIN_AUTH_ERRORS, ['INVALID_QUERY']) },
      }),
    },
    '/v2/admin/projects/{projectid}/quotas': {
      get: op('getProjectQuotas', {
        summary: 'Quota counters and limits of a project',
        description: 'For the current month (UTC), or the one given.',
        parameters: [projectParameter, {
          name: 'month', in: 'query', required: false, schema: { type: 'string', pattern: '^\\d{4}-(0[1-9]|1[0-2])$' }, example: '2025-01',
        }],
        responses: { ...success(200, 'Counters and limits.', 'QuotaReport', QUOTA_REPORT_EXAMPLE), ...errorResponses(ADMIN_AUTH_ERRORS, ['INVALID_QUERY']) },
      }),
      put: op('setProjectQuotas', {
        summary: 'Set the monthly limits of a project',
        description: 'Replaces every limit: a quota left out (or `null`) is unlimited, the default.',
        parameters: [projectParameter],
        requestBody: { required: true, content: jsonBody('QuotaLimitsRequest', { shadowOps: 500000, triggerRuns: 5000, messages: 9000000, apiCalls: 800000 }) },
        responses: { ...success(200, 'Counters and the new limits.', 'QuotaReport', QUOTA_REPORT_EXAMPLE), ...errorResponses(ADMIN_AUTH_ERRORS, JSON_BODY_ERRORS, ['INVALID_QUERY']) },
      }),
    },
  };
}

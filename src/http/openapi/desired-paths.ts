import { ErrorCode } from '../../core/errors';
import { SHADOW_LIMITS } from '../../shadows/limits';
import { jsonBody, success } from './content';
import { DEVICE_API_ERRORS, errorResponses, JSON_BODY_ERRORS } from './error-responses';
import { CONDITION_ERRORS, conditionHeaders, withEtag } from './shadow-conditions';
import { ADMIN_SECURITY, DEVICE_SECURITY, USER_TOKEN_SECURITY } from './security';
import { Operation, Parameter, Paths, Schema, schemaRef, SecurityRequirement } from './types';

const DEVICE_ID = '5d0c6a52-3b1e-4f0a-9d39-2c8f1a7b9e10';
const ADMIN_AUTH_ERRORS: ErrorCode[] = ['MISSING_CREDENTIALS', 'INVALID_CREDENTIALS', 'ROLE_FORBIDDEN', 'PROJECT_FORBIDDEN'];
const TOKEN_AUTH_ERRORS: ErrorCode[] = ['MISSING_CREDENTIALS', 'INVALID_CREDENTIALS', 'TOKEN_GRANT_MISSING', 'DEVICE_NOT_FOUND'];
const WRITE_ERRORS: ErrorCode[] = [...JSON_BODY_ERRORS, 'SHADOW_TOO_LARGE', 'QUOTA_EXCEEDED', ...CONDITION_ERRORS];

const Document: Schema = {
  type: 'object',
  additionalProperties: true,
  description: `Fields as in \`data\`: a JSON object, at most ${SHADOW_LIMITS.maxDepth} levels deep, at most ` +
    `${SHADOW_LIMITS.maxDocumentBytes / 1024} KiB stored.`,
};

const DesiredMembers: Record<string, Schema> = {
  deviceid: { type: 'string' },
  desired: Document,
  delta: { ...Document, description: 'The members of `desired` whose value differs from `data` (nested objects member by member); `{}` when none.' },
  rev: { type: 'integer', minimum: 0, description: 'The desired document\'s own revision, +1 per write; 0: never written.' },
  datarev: { type: 'integer', minimum: 0, description: 'The rev of `data` the delta was computed against.' },
  modified: { type: 'integer', description: 'Epoch ms of the last desired write; 0: never written.' },
};

/** Components of the desired routes (docs/device-api.md "Desired state"). */
export const DESIRED_SCHEMAS: Record<string, Schema> = {
  DesiredState: {
    type: 'object',
    required: ['status', 'deviceid', 'desired', 'delta', 'rev', 'datarev', 'modified'],
    additionalProperties: false,
    properties: { status: { const: 200 }, ...DesiredMembers },
  },
  DesiredWriteReply: {
    type: 'object',
    required: ['status', 'deviceid', 'desired', 'delta', 'rev', 'datarev', 'modified'],
    additionalProperties: false,
    properties: {
      status: { const: 200 },
      ...DesiredMembers,
      warnings: schemaRef('FieldWarnings'),
      warningsOmitted: { type: 'integer', minimum: 1 },
    },
  },
  DesiredWriteRequest: {
    type: 'object',
    required: ['data'],
    additionalProperties: false,
    properties: {
      data: { ...Document, description: 'What to want: merged into the desired document (PUT) or replacing it (POST); `null` deletes a member.' },
      merged: { type: 'boolean', description: 'Beats the method: `true` merges, `false` overwrites.' },
      rev: { type: 'integer', minimum: 0, description: 'Write only if the desired document is at this rev (as If-Match).' },
    },
  },
};

const READ_EXAMPLE = { status: 200, deviceid: DEVICE_ID, desired: { led: 'on', config: { rate: 5 } }, delta: { led: 'on' }, rev: 2, datarev: 7, modified: 1700000000200 };
const WRITE_EXAMPLE = { data: { led: 'on', config: { rate: 5 } } };

/** GET, PUT and POST of one caller's desired route. */
function desiredOperations(ids: { read: string; merge: string; overwrite: string }, tags: string[], security: SecurityRequirement[],
  parameters: Parameter[], errors: readonly ErrorCode[], who: string) {
  const op = (id: string, fields: Omit<Operation, 'operationId' | 'tags' | 'security'>): Operation => ({ operationId: id, tags, security, ...fields });
  const write = (merge: boolean) => op(merge ? ids.merge : ids.overwrite, {
    summary: merge ? `Merge-write the desired state (${who})` : `Overwrite the desired state (${who})`,
    description: (merge ? 'Deep merge; `null` deletes a member.' : 'Replaces the whole desired document.') +
      ' The device schema applies, `$$` being the desired document. Never changes `data`, records no points, fires no ' +
      'trigger and sends no `@shadow/data/updated`; the new delta is pushed on `@shadow/desired/delta` before the answer. ' +
      'If-Match / If-None-Match (or `rev`) on the desired document\'s own rev. One shadow operation per started KiB.',
    parameters: [...parameters, ...conditionHeaders],
    requestBody: { required: true, content: jsonBody('DesiredWriteRequest', WRITE_EXAMPLE) },
    responses: {
      ...withEtag(success(200, 'The desired document and its delta.', 'DesiredWriteReply', READ_EXAMPLE)),
      ...errorResponses(errors, WRITE_ERRORS),
    },
  });
  return {
    get: op(ids.read, {
      summary: `Read the desired state and its delta (${who})`,
      description: 'A device nobody gave desired state reads as `{"desired":{},"delta":{},"rev":0,...}` (ETag `"0"`).',
      parameters,
      responses: { ...withEtag(success(200, 'The desired document and its delta.', 'DesiredState', READ_EXAMPLE)), ...errorResponses(errors) },
    }),
    put: write(true),
    post: write(false),
  };
}

const aliasParameter: Parameter = {
  name: 'alias', in: 'query', required: false, schema: { type: 'string' },
  description: 'Another device **of the caller\'s group**, by alias; absent: the caller itself.',
};
const deviceIdParameter: Parameter = { name: 'deviceid', in: 'path', required: true, schema: { type: 'string' }, example: DEVICE_ID };

/** Desired state (issue 25 §2) for the device, an operator and a user token with the grant `desired`. */
export function desiredPaths(): Paths {
  const deviceErrors: ErrorCode[] = [...DEVICE_API_ERRORS, 'OTHER_GROUP', 'ALIAS_NOT_FOUND'];
  return {
    '/v2/device/shadow/desired': desiredOperations(
      { read: 'getDesired', merge: 'mergeDesired', overwrite: 'overwriteDesired' }, ['Device API'], DEVICE_SECURITY, [aliasParameter], deviceErrors, 'device'),
    '/device/shadow/desired': desiredOperations(
      { read: 'getDesiredAlias', merge: 'mergeDesiredAlias', overwrite: 'overwriteDesiredAlias' }, ['Device API (/device alias)'], DEVICE_SECURITY, [aliasParameter], deviceErrors, 'device'),
    '/v2/admin/devices/{deviceid}/shadow/desired': desiredOperations(
      { read: 'readDeviceDesired', merge: 'mergeDeviceDesired', overwrite: 'overwriteDeviceDesired' }, ['Admin API'], ADMIN_SECURITY, [deviceIdParameter],
      [...ADMIN_AUTH_ERRORS, 'DEVICE_NOT_FOUND'], 'operator'),
    '/v2/shadows/{deviceid}/desired': desiredOperations(
      { read: 'readDesiredWithToken', merge: 'mergeDesiredWithToken', overwrite: 'overwriteDesiredWithToken' }, ['Desired state (user tokens)'], USER_TOKEN_SECURITY,
      [deviceIdParameter], TOKEN_AUTH_ERRORS, 'user token'),
  };
}

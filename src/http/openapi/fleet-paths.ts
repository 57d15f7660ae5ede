import { ErrorCode } from '../../core/errors';
import { DEVICE_MEMBERS, FLEET_QUERY_BOUNDS } from '../../fleet/codecs';
import { jsonBody, success } from './content';
import { errorResponses, JSON_BODY_ERRORS } from './error-responses';
import { ADMIN_SECURITY, USER_TOKEN_SECURITY } from './security';
import { Operation, Paths, Schema } from './types';

const QUERY_ERRORS: ErrorCode[] = ['INVALID_FILTER', 'QUERY_TOO_LARGE', 'QUERY_TIMEOUT', 'TOO_MANY_QUERIES', 'BACKEND_UNAVAILABLE'];
const ADMIN_AUTH_ERRORS: ErrorCode[] = ['MISSING_CREDENTIALS', 'INVALID_CREDENTIALS', 'ROLE_FORBIDDEN', 'PROJECT_FORBIDDEN', 'INVALID_QUERY'];
const TOKEN_AUTH_ERRORS: ErrorCode[] = ['MISSING_CREDENTIALS', 'INVALID_CREDENTIALS', 'TOO_MANY_FAILURES', 'TOKEN_GRANT_MISSING'];

const Path: Schema = { type: 'string', description: 'A path into the shadow data: keys joined by dots (`env.temp`), 1 to 8 keys.' };

/** Schemas of the fleet query (components.schemas). */
export const FLEET_SCHEMAS: Readonly<Record<string, Schema>> = {
  FleetQueryRequest: {
    type: 'object',
    additionalProperties: false,
    properties: {
      filter: {
        type: 'string',
        maxLength: 1024,
        default: 'true',
        description: 'An expression of the expression language over `$` (the shadow data) and `$device` ' +
          `(${DEVICE_MEMBERS.join(', ')}); a device matches when it is true. Absent: every device.`,
      },
      groupid: { type: 'string', description: 'Only the devices of this group.' },
      fields: { type: 'array', maxItems: FLEET_QUERY_BOUNDS.maxFields, items: Path, description: 'Only these paths of the data; absent: all of it.' },
      sort: {
        type: 'object',
        required: ['field'],
        additionalProperties: false,
        properties: {
          field: { type: 'string', description: `A path into the shadow data, or one of ${DEVICE_MEMBERS.map((m) => `\`$device.${m}\``).join(', ')}.` },
          order: { enum: ['asc', 'desc'], default: 'asc' },
        },
        description: 'Numbers before strings before booleans, devices without such a value last; ties by deviceid. Absent: by deviceid.',
      },
      limit: { type: 'integer', minimum: 1, maximum: FLEET_QUERY_BOUNDS.maxLimit, default: FLEET_QUERY_BOUNDS.defaultLimit },
      cursor: { type: 'string', description: 'The `next` of the page before, with the same filter, groupid and sort.' },
    },
  },
  FleetQueryAnswer: {
    type: 'object',
    required: ['items', 'total', 'scanned', 'filterErrors'],
    additionalProperties: false,
    properties: {
      items: {
        type: 'array',
        items: {
          type: 'object',
          required: ['deviceid', 'groupid', 'alias', 'rev', 'modified', 'data'],
          additionalProperties: false,
          properties: {
            deviceid: { type: 'string' }, groupid: { type: 'string' }, alias: { type: 'string' },
            rev: { type: 'integer' }, modified: { type: 'integer', description: 'Epoch ms of the last write.' }, data: { type: 'object' },
          },
        },
      },
      total: { type: 'integer', description: 'Devices the filter matches, over every page.' },
      scanned: { type: 'integer', description: 'Devices looked at: the project\'s, or the group\'s.' },
      filterErrors: { type: 'integer', description: 'Devices the filter could not be evaluated on, counted as not matching.' },
      next: { type: 'string', description: 'Present when more devices follow: the `cursor` of the next page.' },
    },
  },
};

const BODY_EXAMPLE = { filter: '$.battery < 20 && $.fw != "2.1"', fields: ['battery', 'fw'], sort: { field: 'battery' }, limit: 50 };
const ANSWER_EXAMPLE = {
  items: [{ deviceid: 'a1b2c3', groupid: 'sensors', alias: 'hall', rev: 42, modified: 1700000000000, data: { battery: 7, fw: '2.0' } }],
  total: 1, scanned: 1200, filterErrors: 0,
};
const DESCRIPTION = 'Answered from each node\'s index of the project, which follows writes within a store read of their notice ' +
  '(docs/fleet-query.md). Devices whose shadow was never written are not in it.';

const queryOperation = (id: string, tags: string[], security: Operation['security'], auth: ErrorCode[], summary: string, parameters?: Operation['parameters']): Operation => ({
  operationId: id,
  tags,
  security,
  summary,
  description: DESCRIPTION,
  ...(parameters ? { parameters } : {}),
  requestBody: { required: true, content: jsonBody('FleetQueryRequest', BODY_EXAMPLE) },
  responses: { ...success(200, 'A page of the matching devices.', 'FleetQueryAnswer', ANSWER_EXAMPLE), ...errorResponses(auth, JSON_BODY_ERRORS, QUERY_ERRORS) },
});

/** The fleet query (issue 25 §4; docs/fleet-query.md). */
export function fleetPaths(): Paths {
  return {
    '/v2/admin/projects/{projectid}/shadows/query': {
      post: queryOperation('queryProjectShadows', ['Admin API'], ADMIN_SECURITY, ADMIN_AUTH_ERRORS, "Query a project's shadows (viewer)", [
        { name: 'projectid', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' }, example: 'home' },
      ]),
    },
    '/v2/shadows/query': {
      post: queryOperation('queryShadowsWithToken', ['Fleet query (user tokens)'], USER_TOKEN_SECURITY, TOKEN_AUTH_ERRORS,
        "Query the shadows of the token's project (grant `fleet`)"),
    },
  };
}

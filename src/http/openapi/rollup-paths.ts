import { ErrorCode } from '../../core/errors';
import { jsonBody, success } from './content';
import { errorResponses, JSON_BODY_ERRORS } from './error-responses';
import { Duration } from './retention-paths';
import { ADMIN_SECURITY } from './security';
import { Operation, Parameter, Paths, Schema } from './types';

const ADMIN_AUTH_ERRORS: ErrorCode[] = ['MISSING_CREDENTIALS', 'INVALID_CREDENTIALS', 'ROLE_FORBIDDEN', 'PROJECT_FORBIDDEN'];

const Tier: Schema = {
  type: 'object',
  required: ['period', 'retention'],
  additionalProperties: false,
  properties: {
    period: { ...Duration, description: 'Whole minutes that divide a day: 1m, 5m, 15m, 1h, 6h, 1d ... Buckets start at multiples of it since the epoch (UTC).' },
    retention: { oneOf: [Duration, { const: 'unlimited' }], description: 'How long a bucket is kept after it ends, or `unlimited`.' },
  },
};

/** Schemas of a project's roll-ups (components.schemas). */
export const ROLLUP_SCHEMAS: Readonly<Record<string, Schema>> = {
  RollupRequest: {
    type: 'object', required: ['tiers'], additionalProperties: false,
    properties: { tiers: { type: 'array', minItems: 1, maxItems: 4, items: Tier, description: 'Of different periods.' } },
  },
  RollupReport: {
    type: 'object',
    required: ['projectid', 'tiers', 'status'],
    additionalProperties: false,
    properties: {
      projectid: { type: 'string' },
      tiers: {
        type: 'array',
        items: { type: 'object', required: ['period', 'retention'], additionalProperties: false, properties: { period: { type: 'string' }, retention: { type: 'string' } } },
        description: 'Sorted by period, durations in the largest unit that divides them.',
      },
      status: {
        type: 'string', enum: ['none', 'building', 'ready'],
        description: '`building`: the stored history is being rolled up and queries read raw points; `ready`: tiers answer.',
      },
    },
  },
};

const EXAMPLE = { projectid: 'home', tiers: [{ period: '1m', retention: '30d' }, { period: '1h', retention: 'unlimited' }], status: 'ready' };
const projectParameter: Parameter = {
  name: 'projectid', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' }, example: 'home',
};
const op = (id: string, fields: Omit<Operation, 'operationId' | 'tags' | 'security'>): Operation => ({
  operationId: id, tags: ['Admin API'], security: ADMIN_SECURITY, ...fields,
});

/** A project's roll-up tiers (issue 23 §3; docs/data-store.md "Roll-ups"). */
export function rollupPaths(): Paths {
  return {
    '/v2/admin/projects/{projectid}/rollups': {
      get: op('getProjectRollups', {
        summary: "A project's roll-up tiers",
        description: 'Each tier keeps, per bucket of its period, the min, max, sum and count of every field of every device of the project.',
        parameters: [projectParameter],
        responses: { ...success(200, 'The tiers.', 'RollupReport', EXAMPLE), ...errorResponses(ADMIN_AUTH_ERRORS, ['INVALID_QUERY']) },
      }),
      put: op('setProjectRollups', {
        summary: "Replace a project's roll-up tiers (operator)",
        description: 'The stored history of the last 400 days is rolled up in the background (status `building`); a tier no longer ' +
          'declared is deleted. Queries a tier answers exactly are then answered from it (`X-Openpie-Rollup`).',
        parameters: [projectParameter],
        requestBody: { required: true, content: jsonBody('RollupRequest', { tiers: [{ period: '1m', retention: '30d' }, { period: '1h', retention: 'unlimited' }] }) },
        responses: { ...success(200, 'The new tiers, building.', 'RollupReport', { ...EXAMPLE, status: 'building' }), ...errorResponses(ADMIN_AUTH_ERRORS, JSON_BODY_ERRORS, ['INVALID_QUERY']) },
      }),
      delete: op('clearProjectRollups', {
        summary: "Remove a project's roll-up tiers (operator)",
        description: 'Their points are deleted in the background. No error when the project has none.',
        parameters: [projectParameter],
        responses: { 204: { description: 'Removed.' }, ...errorResponses(ADMIN_AUTH_ERRORS, ['INVALID_QUERY']) },
      }),
    },
  };
}

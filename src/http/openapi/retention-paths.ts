import { ErrorCode } from '../../core/errors';
import { jsonBody, success } from './content';
import { errorResponses, JSON_BODY_ERRORS } from './error-responses';
import { ADMIN_SECURITY } from './security';
import { Operation, Parameter, Paths, Schema } from './types';

// An operator's role or projects may not reach the call (docs/operations.md "Operators, roles and the audit log").
const ADMIN_AUTH_ERRORS: ErrorCode[] = ['MISSING_CREDENTIALS', 'INVALID_CREDENTIALS', 'ROLE_FORBIDDEN', 'PROJECT_FORBIDDEN'];

/** NETPIE's ttl form (timeseries/durations.ts), also a datatag's and a schema field's `store.ttl`. */
export const Duration: Schema = {
  oneOf: [
    { type: 'string', pattern: '^\\s*\\d{1,16}\\s*(ms|s|m|h|d|y)?\\s*$' },
    { type: 'integer', minimum: 1 },
  ],
  description: 'A whole number of ms, s, m, h, d or y (a year is 365 days), or a bare number of milliseconds; 1 ms to 20y.',
};
const Level: Schema = { type: 'string', description: 'A duration in the largest unit that divides it (`30d`), or `unlimited`.' };

/** Schemas of a project's retention (components.schemas). */
export const RETENTION_SCHEMAS: Readonly<Record<string, Schema>> = {
  RetentionRequest: { type: 'object', required: ['retention'], additionalProperties: false, properties: { retention: Duration } },
  RetentionReport: {
    type: 'object',
    required: ['projectid', 'retention', 'serviceDefault', 'effective', 'effectiveMs'],
    additionalProperties: false,
    properties: {
      projectid: { type: 'string' },
      retention: { type: ['string', 'null'], description: "The project's own retention; null: POINT_RETENTION applies." },
      serviceDefault: { ...Level, description: 'POINT_RETENTION.' },
      effective: { ...Level, description: "What applies to the project's points without a ttl of their own, written from now on." },
      effectiveMs: { type: ['integer', 'null'], description: 'The same in ms; null: kept until deleted.' },
    },
  },
};

const REPORT_EXAMPLE = { projectid: 'home', retention: '30d', serviceDefault: 'unlimited', effective: '30d', effectiveMs: 2592000000 };
const projectParameter: Parameter = {
  name: 'projectid', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' }, example: 'home',
};
const op = (id: string, fields: Omit<Operation, 'operationId' | 'tags' | 'security'>): Operation => ({
  operationId: id, tags: ['Admin API'], security: ADMIN_SECURITY, ...fields,
});
const APPLIES_LATER = ' A change applies to points written afterwards; points already stored keep the expiry they were written with.';

/** A project's retention of points (issue 23 §2; docs/data-store.md "Retention"). */
export function retentionPaths(): Paths {
  return {
    '/v2/admin/projects/{projectid}/retention': {
      get: op('getProjectRetention', {
        summary: "A project's retention of points",
        description: "The project's own retention, POINT_RETENTION, and which of them applies. A field's ttl (a datatag's or a schema's) wins over both.",
        parameters: [projectParameter],
        responses: { ...success(200, 'The retention levels.', 'RetentionReport', REPORT_EXAMPLE), ...errorResponses(ADMIN_AUTH_ERRORS, ['INVALID_QUERY']) },
      }),
      put: op('setProjectRetention', {
        summary: "Set a project's retention of points (operator)",
        description: `Points of the project's devices without a ttl of their own expire this long after their own time.${APPLIES_LATER}`,
        parameters: [projectParameter],
        requestBody: { required: true, content: jsonBody('RetentionRequest', { retention: '30d' }) },
        responses: { ...success(200, 'The new retention levels.', 'RetentionReport', REPORT_EXAMPLE), ...errorResponses(ADMIN_AUTH_ERRORS, JSON_BODY_ERRORS, ['INVALID_QUERY']) },
      }),
      delete: op('clearProjectRetention', {
        summary: "Drop a project's retention back to POINT_RETENTION (operator)",
        description: `No error when the project has none.${APPLIES_LATER}`,
        parameters: [projectParameter],
        responses: { 204: { description: 'Dropped.' }, ...errorResponses(ADMIN_AUTH_ERRORS, ['INVALID_QUERY']) },
      }),
    },
  };
}

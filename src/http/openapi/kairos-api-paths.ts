import { ErrorCode } from '../../core/errors';
import { FEATURES } from '../../timeseries/kairos-features';
import { jsonBody } from './content';
import { DEVICE_AUTH_ERRORS, errorResponses } from './error-responses';
import { FEED_SECURITY } from './security';
import { Operation, Paths, Schema } from './types';

const METRIC = '5d0c6a52-3b1e-4f0a-9d39-2c8f1a7b9e10';

/** Those of POST /datapoints/query (feed-paths.ts), budgets and slots included: both forms run the same use case. */
const QUERY_ERRORS: ErrorCode[] = ['INVALID_QUERY', 'INVALID_JSON', 'KAIROS_QUERY_INVALID', 'METRIC_FORBIDDEN', 'METRIC_AMBIGUOUS', 'QUERY_TOO_LARGE',
  'QUERY_TIMEOUT', 'TOO_MANY_QUERIES', 'SHUTTING_DOWN', 'BACKEND_ERROR', 'BACKEND_UNAVAILABLE', 'SCRIPT_ERROR', 'SCRIPT_TIMEOUT',
  'SCRIPT_MEMORY_LIMIT', 'SCRIPT_STACK_OVERFLOW', 'SCRIPT_TOO_LONG', 'SCRIPT_INPUT_TOO_LARGE'];
const DELETE_ERRORS: ErrorCode[] = ['METRIC_FORBIDDEN', 'READ_ONLY_TOKEN', 'SHUTTING_DOWN', 'BACKEND_ERROR', 'BACKEND_UNAVAILABLE'];

const WHO_DELETES = 'Deletes only what the caller may write: the admin token any metric, a user token issued with ' +
  '`"scope": "write"` the devices of its project, a device its own history. The shadow is not touched.';

const FeatureProperty: Schema = {
  type: 'object',
  required: ['name', 'label', 'description', 'optional', 'type', 'multiline'],
  properties: {
    name: { type: 'string' },
    label: { type: 'string' },
    description: { type: 'string' },
    optional: { type: 'boolean' },
    type: { type: 'string', description: '`boolean`, `int`, `long`, `double`, `String`, `enum`, `array`, or `Object` (then `properties`).' },
    options: { type: 'array', items: { type: 'string' } },
    defaultValue: { type: 'string', description: 'What the engine uses when the property is left out.' },
    autocomplete: { type: 'string' },
    multiline: { type: 'boolean' },
    validations: {
      type: 'array',
      items: { type: 'object', required: ['expression', 'type', 'message'], properties: { expression: { type: 'string' }, type: { const: 'js' }, message: { type: 'string' } } },
    },
    properties: { type: 'array', items: { $ref: '#/components/schemas/KairosFeatureProperty' } },
  },
};

const FeatureComponent: Schema = {
  type: 'object',
  required: ['name', 'label', 'description', 'properties'],
  properties: {
    name: { type: 'string' },
    label: { type: 'string' },
    description: { type: 'string' },
    properties: { type: 'array', items: { $ref: '#/components/schemas/KairosFeatureProperty' } },
  },
};

/** Components of the document's schemas used by these paths. */
export const KAIROS_API_SCHEMAS: Record<string, Schema> = {
  KairosFeatureProperty: FeatureProperty,
  KairosFeatureComponent: FeatureComponent,
  KairosFeatures: {
    type: 'array',
    items: {
      type: 'object',
      required: ['name', 'label', 'properties'],
      properties: {
        name: { enum: ['group_by', 'aggregators'] },
        label: { type: 'string' },
        properties: { type: 'array', items: { $ref: '#/components/schemas/KairosFeatureComponent' } },
      },
    },
  },
  KairosFeatureList: { type: 'array', items: { $ref: '#/components/schemas/KairosFeatureComponent' } },
  KairosHealthStatus: { type: 'array', items: { type: 'string', pattern: ': (OK|FAIL)$' } },
};

/**
 * The rest of KairosDB's API (src/http/data-store-router.ts, beside feedPaths), under `{prefix}/api/v1` for `/v2/feed` and `/feed`:
 * the GET form of a query, health, features, deleting history.
 */
export function kairosApiPaths(prefix: string): Paths {
  const base = `${prefix}/api/v1`;
  const isAlias = prefix !== '/v2/feed';
  const tags = [isAlias ? 'Data store (/feed alias)' : 'Data store (KairosDB format)'];
  const op = (id: string, fields: Omit<Operation, 'operationId' | 'tags' | 'security'>): Operation => ({
    operationId: isAlias ? `${id}Alias` : id,
    tags,
    security: FEED_SECURITY,
    ...fields,
  });
  const noContent = (description: string) => ({ 204: { description } });

  return {
    [`${base}/datapoints/query`]: {
      get: op('queryDatapointsGet', {
        summary: 'Query data points, the query in the URL (KairosDB\'s GET form)',
        description: 'The same query as `POST /datapoints/query`, URL-encoded in `query`, with the same answers, scope and errors.',
        parameters: [{
          name: 'query', in: 'query', required: true, description: 'The query JSON, URL-encoded (read leniently, # comments too).',
          schema: { type: 'string' },
          example: JSON.stringify({ start_relative: { value: 1, unit: 'hours' }, metrics: [{ name: METRIC }] }),
        }],
        responses: {
          200: { description: 'KairosDB\'s query result.', content: jsonBody('KairosQueryResult') },
          ...errorResponses(DEVICE_AUTH_ERRORS, QUERY_ERRORS),
        },
      }),
    },
    [`${base}/datapoints/delete`]: {
      post: op('deleteDatapoints', {
        summary: 'Delete the points a query selects',
        description: 'The body is a query, validated like one; its metrics\' series matching the tag filters lose their points ' +
          'in the range (aggregators, group_by, limit and order have no effect). Without an end it deletes to the end of time, ' +
          `as KairosDB does. ${WHO_DELETES}`,
        requestBody: {
          required: true,
          content: jsonBody('KairosQuery', { start_absolute: 1700000000000, end_absolute: 1700003600000, metrics: [{ name: METRIC, tags: { attr: ['temp'] } }] }),
        },
        responses: {
          ...noContent('Deleted.'),
          ...errorResponses(DEVICE_AUTH_ERRORS, ['INVALID_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'KAIROS_QUERY_INVALID'], DELETE_ERRORS),
        },
      }),
    },
    [`${base}/metric/{metric}`]: {
      delete: op('deleteMetric', {
        summary: 'Delete a metric\'s whole history',
        description: `Every point of the metric (a \`deviceid\`); 204 also when it has none, as KairosDB answers. ${WHO_DELETES}`,
        parameters: [{ name: 'metric', in: 'path', required: true, schema: { type: 'string' }, example: METRIC }],
        responses: { ...noContent('Deleted.'), ...errorResponses(DEVICE_AUTH_ERRORS, DELETE_ERRORS) },
      }),
    },
    [`${base}/health/check`]: {
      get: op('healthCheck', {
        summary: 'Health: 204 when every backend answers',
        description: 'The backends of `/readyz`. Wants the credentials of a query, so a tool\'s connection test checks them too.',
        responses: { ...noContent('Every backend answers.'), ...errorResponses(DEVICE_AUTH_ERRORS, ['HEALTH_CHECK_FAILED']) },
      }),
    },
    [`${base}/health/status`]: {
      get: op('healthStatus', {
        summary: 'Health of each backend, as KairosDB lists it',
        description: 'Always 200 (with credentials): one `<backend>: OK` or `<backend>: FAIL` per backend of `/readyz`. Grafana\'s KairosDB data source tests its connection here.',
        responses: {
          200: { description: 'One line per backend.', content: jsonBody('KairosHealthStatus', ['sqlite: OK', 'timeseries: OK', 'mqtt: OK']) },
          ...errorResponses(DEVICE_AUTH_ERRORS),
        },
      }),
    },
    [`${base}/features`]: {
      get: op('listFeatures', {
        summary: 'The groupers and aggregators this service runs, in KairosDB\'s metadata shape',
        responses: {
          200: { description: '`group_by` and `aggregators`, each with its components and their properties.', content: jsonBody('KairosFeatures', FEATURES) },
          ...errorResponses(DEVICE_AUTH_ERRORS),
        },
      }),
    },
    [`${base}/features/{feature}`]: {
      get: op('getFeature', {
        summary: 'The components of one feature',
        parameters: [{ name: 'feature', in: 'path', required: true, schema: { enum: FEATURES.map((f) => f.name) }, example: 'aggregators' }],
        responses: {
          200: { description: 'Its components.', content: jsonBody('KairosFeatureList') },
          ...errorResponses(DEVICE_AUTH_ERRORS, ['FEATURE_NOT_FOUND']),
        },
      }),
    },
  };
}

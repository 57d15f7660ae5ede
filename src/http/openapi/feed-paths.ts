import { ErrorCode } from '../../core/errors';
import { jsonBody, success } from './content';
import { DEVICE_AUTH_ERRORS, errorResponses } from './error-responses';
import { FEED_SECURITY, PUBLIC } from './security';
import { Operation, Parameter, Paths, RequestBody, Response } from './types';

const METRIC = '5d0c6a52-3b1e-4f0a-9d39-2c8f1a7b9e10';

const queryExample = {
  start_relative: { value: 24, unit: 'hours' },
  metrics: [{ name: METRIC, tags: { attr: ['temp'] }, aggregators: [{ name: 'avg', sampling: { value: 1, unit: 'hours' } }] }],
};

const queryBody: RequestBody = {
  required: true,
  description: 'A KairosDB 1.2 query. Read leniently like KairosDB\'s (single quotes, unquoted keys, comments).',
  content: jsonBody('KairosQuery', queryExample),
};

const SCRIPT_ERRORS: ErrorCode[] = ['SCRIPT_ERROR', 'SCRIPT_TIMEOUT', 'SCRIPT_MEMORY_LIMIT', 'SCRIPT_STACK_OVERFLOW',
  'SCRIPT_TOO_LONG', 'SCRIPT_INPUT_TOO_LARGE'];
/** With the query budgets and slots of issue 10 (docs/limits-and-errors.md "Budgets of shared resources"). */
const QUERY_ERRORS: ErrorCode[] = ['INVALID_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'REQUEST_TIMEOUT', 'KAIROS_QUERY_INVALID',
  'METRIC_FORBIDDEN', 'METRIC_AMBIGUOUS', 'QUERY_TOO_LARGE', 'QUERY_TIMEOUT', 'TOO_MANY_QUERIES', 'SHUTTING_DOWN', 'BACKEND_ERROR', 'BACKEND_UNAVAILABLE'];
const READ_ERRORS: ErrorCode[] = [...DEVICE_AUTH_ERRORS, 'INVALID_QUERY', 'SHUTTING_DOWN', 'BACKEND_ERROR', 'BACKEND_UNAVAILABLE'];

const SCOPE = 'A user token reads every device of its project; a device reads itself and the devices of its group.';

/** Roll-up tiers (issue 23 §3; docs/data-store.md "Roll-ups"): asked not to answer, and named when they did. */
const ROLLUP_PARAMETER: Parameter = {
  name: 'X-Openpie-Rollup',
  in: 'header',
  required: false,
  description: '`off`: answer from the raw points even where a roll-up tier of the project could answer exactly.',
  schema: { type: 'string', enum: ['off'] },
};
const ROLLUP_HEADER = {
  'X-Openpie-Rollup': { description: 'The roll-up tier that answered (`1h`); absent when the raw points did.', schema: { type: 'string' } },
};
const withHeaders = (responses: Record<string, Response>, headers: Response['headers']): Record<string, Response> =>
  ({ ...responses, 200: { ...responses['200'], headers } });

/** The data-store API (spec 4.7) in KairosDB's format, under `{prefix}/api/v1` for `/v2/feed` and `/feed`. */
export function feedPaths(prefix: string): Paths {
  const base = `${prefix}/api/v1`;
  const isAlias = prefix !== '/v2/feed';
  const tags = [isAlias ? 'Data store (/feed alias)' : 'Data store (KairosDB format)'];
  const op = (id: string, fields: Omit<Operation, 'operationId' | 'tags'>): Operation => ({
    operationId: isAlias ? `${id}Alias` : id,
    tags,
    security: FEED_SECURITY,
    ...fields,
  });
  const listing = (id: string, summary: string, example: string[]) => op(id, {
    summary,
    description: `Over the devices the caller may read. ${SCOPE}`,
    responses: { ...success(200, 'The names.', 'ResultList', { results: example }), ...errorResponses(READ_ERRORS) },
  });

  return {
    [`${base}/datapoints/query`]: {
      post: op('queryDatapoints', {
        summary: 'Query data points (KairosDB query)',
        description: `Metric = \`deviceid\`, tag \`attr\` = shadow field. ${SCOPE} A query naming any other metric ` +
          '(also as a `save_as` target) is refused whole with 403 `METRIC_FORBIDDEN`. A device may also be named ' +
          '`<groupid>/<alias>`, or by an alias unique among the devices the caller may read (400 `METRIC_AMBIGUOUS` ' +
          'otherwise); results carry the name the query used (docs/data-store.md "Devices by name"). A query that a ' +
          'roll-up tier of the project answers exactly is answered from it, with the header `X-Openpie-Rollup` ' +
          '(docs/data-store.md "Roll-ups").',
        parameters: [ROLLUP_PARAMETER],
        requestBody: queryBody,
        responses: {
          ...withHeaders(success(200, 'KairosDB\'s query result.', 'KairosQueryResult', {
            queries: [{
              sample_size: 2, keys_scanned: 1, results: [{
                name: METRIC, group_by: [{ name: 'type', type: 'number' }], tags: { attr: ['temp'] },
                values: [[1700000000000, 21.5], [1700003600000, 22.1]],
              }],
            }],
          }), ROLLUP_HEADER),
          ...errorResponses(DEVICE_AUTH_ERRORS, QUERY_ERRORS, SCRIPT_ERRORS),
        },
      }),
    },
    [`${base}/datapoints/query/tags`]: {
      post: op('queryTags', {
        summary: 'Tags of the series a query matches',
        description: `The same body as a query; groupers and aggregators have no effect. ${SCOPE}`,
        requestBody: queryBody,
        responses: {
          ...success(200, 'Tags per metric.', 'KairosTagsResult', {
            queries: [{ results: [{ name: METRIC, tags: { attr: ['humid', 'temp'] }, values: [] }] }],
          }),
          ...errorResponses(DEVICE_AUTH_ERRORS, QUERY_ERRORS),
        },
      }),
    },
    [`${base}/metricnames`]: {
      get: {
        ...listing('listMetricNames', 'Devices that have points, by id and by `<groupid>/<alias>`', [METRIC, 'kitchen/lamp']),
        parameters: [{ name: 'prefix', in: 'query', required: false, description: 'Only names starting so.', schema: { type: 'string' } }],
      },
    },
    [`${base}/tagnames`]: { get: listing('listTagNames', 'Tag names', ['attr']) },
    [`${base}/tagvalues`]: { get: listing('listTagValues', 'Tag values (shadow field names)', ['humid', 'temp']) },
    [`${base}/version`]: {
      get: op('getVersion', {
        summary: 'Version (needs no credentials)',
        description: 'Like KairosDB\'s: tools call it to test a connection.',
        security: PUBLIC,
        responses: {
          ...success(200, 'The version.', 'Version', { version: 'openpie 0.1.0 (KairosDB 1.2 query API)' }),
          ...errorResponses(),
        },
      }),
    },
  };
}

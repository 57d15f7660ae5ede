import { Schema } from './types';

/**
 * Bodies of the data-store API, in KairosDB 1.2's format (kairosdb reference §3, §5). The request schema names the
 * members people use; the service reads bodies leniently like KairosDB (single quotes, comments) and its own
 * validation, not this schema, decides what is refused, with KairosDB's messages.
 */
const RelativeTime: Schema = {
  type: 'object',
  required: ['value', 'unit'],
  properties: {
    value: { type: 'integer', minimum: 1 },
    unit: { enum: ['milliseconds', 'seconds', 'minutes', 'hours', 'days', 'weeks', 'months', 'years'] },
  },
};

const Named: Schema = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string' } },
  additionalProperties: true,
};

const KairosMetric: Schema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', description: 'A `deviceid` the caller may read.' },
    tags: {
      type: 'object',
      additionalProperties: { type: 'array', items: { type: 'string' } },
      description: 'Tag filters: OR within a tag\'s list, AND across tags. Tag `attr` names the shadow field.',
      examples: [{ attr: ['temp', 'humid'] }],
    },
    group_by: {
      type: 'array',
      items: Named,
      description: 'Groupers `tag`, `time`, `value`, `bin`, as in KairosDB.',
    },
    aggregators: {
      type: 'array',
      items: Named,
      description: 'KairosDB aggregators (`avg`, `max`, `sum`, `rate`, `js_function`, … see docs/data-store.md), applied in order.',
      examples: [[{ name: 'avg', sampling: { value: 1, unit: 'hours' } }]],
    },
    exclude_tags: { type: 'boolean' },
    order: { enum: ['asc', 'desc'] },
    limit: { type: 'integer', minimum: 1 },
  },
};

const TagMap: Schema = { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } };

const Results: Schema = {
  type: 'object',
  required: ['results'],
  additionalProperties: false,
  properties: { results: { type: 'array', items: { type: 'string' } } },
};

export const FEED_SCHEMAS: Readonly<Record<string, Schema>> = {
  KairosQuery: {
    type: 'object',
    required: ['metrics'],
    description: 'Exactly one of `start_absolute` and `start_relative`; at most one end, after the start; no end means now.',
    properties: {
      start_absolute: { type: 'integer', description: 'Epoch ms.' },
      start_relative: RelativeTime,
      end_absolute: { type: 'integer', description: 'Epoch ms.' },
      end_relative: RelativeTime,
      time_zone: { type: 'string', description: 'IANA zone; default UTC.' },
      cache_time: { type: 'integer' },
      metrics: { type: 'array', minItems: 1, items: KairosMetric },
    },
  },
  KairosQueryResult: {
    type: 'object',
    required: ['queries'],
    additionalProperties: false,
    properties: {
      queries: {
        type: 'array',
        description: 'One entry per metric of the query, in its order.',
        items: {
          type: 'object',
          required: ['sample_size', 'results'],
          additionalProperties: false,
          properties: {
            sample_size: { type: 'integer', description: 'Points read.' },
            keys_scanned: { type: 'integer', description: 'Absent with TIMESERIES=kairosdb: upstream KairosDB 1.2.1 has no keys_scanned.' },
            results: {
              type: 'array',
              items: {
                type: 'object',
                required: ['name', 'values'],
                additionalProperties: false,
                properties: {
                  name: { type: 'string' },
                  group_by: { type: 'array', items: Named },
                  tags: TagMap,
                  values: {
                    type: 'array',
                    description: '`[timestamp, value]`; a `js_range` array result gives `[timestamp, v1, v2, …]`.',
                    items: {
                      type: 'array',
                      minItems: 2,
                      prefixItems: [{ type: 'integer' }, { type: ['number', 'null'] }],
                      items: { type: ['number', 'null'] },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
  KairosTagsResult: {
    type: 'object',
    required: ['queries'],
    additionalProperties: false,
    properties: {
      queries: {
        type: 'array',
        items: {
          type: 'object',
          required: ['results'],
          additionalProperties: false,
          properties: {
            results: {
              type: 'array',
              items: {
                type: 'object',
                required: ['name', 'tags', 'values'],
                additionalProperties: false,
                properties: { name: { type: 'string' }, tags: TagMap, values: { type: 'array', maxItems: 0 } },
              },
            },
          },
        },
      },
    },
  },
  ResultList: Results,
  Version: {
    type: 'object',
    required: ['version'],
    additionalProperties: false,
    properties: { version: { type: 'string', examples: ['openpie 0.1.0 (KairosDB 1.2 query API)'] } },
  },
};

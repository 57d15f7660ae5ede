import { errorResponses } from './error-responses';
import { PUBLIC } from './security';
import { Operation, Paths, Schema } from './types';

const op = (id: string, fields: Omit<Operation, 'operationId' | 'tags'>): Operation => ({
  operationId: id,
  tags: ['Operations'],
  security: PUBLIC,
  ...fields,
});

const Readiness: Schema = {
  type: 'object',
  required: ['status', 'checks'],
  properties: {
    status: { enum: ['ok', 'unavailable'] },
    checks: {
      type: 'object',
      description: 'One entry per configured backend.',
      additionalProperties: {
        type: 'object',
        required: ['status', 'ms'],
        properties: { status: { enum: ['ok', 'fail'] }, ms: { type: 'number' } },
      },
    },
  },
};

/** Probes and metrics for operators (src/http/ops-router.ts). */
export function opsPaths(): Paths {
  return {
    '/healthz': {
      get: op('getHealth', {
        summary: 'The process is up',
        responses: {
          200: {
            description: 'Up.',
            content: { 'application/json': { schema: { type: 'object', properties: { status: { const: 'ok' } } }, example: { status: 'ok' } } },
          },
        },
      }),
    },
    '/readyz': {
      get: op('getReadiness', {
        summary: 'Every configured backend is reachable',
        responses: {
          200: { description: 'Ready.', content: { 'application/json': { schema: Readiness } } },
          503: { description: 'A backend is down (named in `checks`).', content: { 'application/json': { schema: Readiness } } },
        },
      }),
    },
    '/metrics': {
      get: op('getMetrics', {
        summary: 'Prometheus metrics',
        description: 'Open, unless METRICS_TOKEN is set: then `Authorization: Bearer <METRICS_TOKEN>`.',
        security: [{}, { MetricsToken: [] }],
        responses: {
          200: { description: 'Prometheus text format.', content: { 'text/plain': { schema: { type: 'string' } } } },
          ...errorResponses(['MISSING_CREDENTIALS', 'INVALID_CREDENTIALS']),
        },
      }),
    },
  };
}

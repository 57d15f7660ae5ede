import { queryError } from './kairos-query-error';
import { decodeLeaf, JsonArrayCodec, member } from './lenient-codecs';
import { ValidatedQuery } from './query-model';
import { validateMetric } from './validate-metric';
import { readTopLevel } from './validate-top-level';

/**
 * Validates a KairosDB query body (reference §3) against `now` (epoch ms; the clock is never read here) and returns
 * the typed query, or throws a KairosQueryError with KairosDB's messages, in KairosDB's order (§3.6): it stops at
 * the first failing step. The result names every metric the query reads and every metric save_as writes, so the
 * caller can authorize them before anything runs.
 *
 * `body` is the parsed JSON. KairosDB's Gson also accepts single quotes and comments; the HTTP layer's strict JSON
 * parser refuses those first.
 */
export function validateQuery(body: unknown, now: number): ValidatedQuery {
  // Step 1. KairosDB answers 500 "Not a JSON Object" here; it is the client's body, so 400.
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw queryError(`Not a JSON Object: ${body === undefined ? 'null' : JSON.stringify(body)}`);
  }
  const object = body as Record<string, unknown>;
  const top = readTopLevel(object);
  // Step 5. An empty array is allowed and answers {"queries": []}.
  const rawMetrics = member(object, 'metrics');
  if (rawMetrics === undefined || rawMetrics === null) throw queryError('query.metric[] must have a size of at least 1');
  const metrics = decodeLeaf(JsonArrayCodec, rawMetrics, 'query.metrics').map((raw, i) => validateMetric(raw, i, top, now));
  return {
    metrics,
    metricNames: [...new Set(metrics.map((m) => m.name))],
    savedMetricNames: [...new Set(metrics.flatMap((m) => m.aggregators.flatMap((a) => (a.name === 'save_as' ? [a.metricName] : []))))],
    now,
  };
}

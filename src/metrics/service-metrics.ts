import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Latency buckets in seconds: 1 ms to 10 s, the span between a cached read and a long KairosDB-format query. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export type Transport = 'http' | 'mqtt';

/**
 * Every metric of one service instance, in a registry of its own (never prom-client's global one), so several
 * services in one process, as in the tests, keep separate counts. Labels never carry device ids or topics: their
 * number must stay small whatever the devices do.
 */
export function createServiceMetrics() {
  const registry = new Registry();
  const registers = [registry];
  // process_* and nodejs_* (CPU, memory, event loop lag, GC). prom-client never stops these collectors; that costs
  // one GC observer per instance, which matters only to test runs with many stacks.
  collectDefaultMetrics({ register: registry });

  const metrics = {
    registry,
    httpRequests: new Counter({
      name: 'openpie_http_requests_total',
      help: 'HTTP requests answered, by method, route template and status',
      labelNames: ['method', 'route', 'status'] as const,
      registers,
    }),
    httpDuration: new Histogram({
      name: 'openpie_http_request_duration_seconds',
      help: 'HTTP request latency in seconds, by method, route template and status',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    mqttConnections: new Gauge({ name: 'openpie_mqtt_connections', help: 'MQTT connections now open (authenticated)', registers }),
    mqttMessagesIn: new Counter({
      name: 'openpie_mqtt_messages_in_total',
      help: 'PUBLISH packets accepted from MQTT clients',
      registers,
    }),
    mqttMessagesOut: new Counter({
      name: 'openpie_mqtt_messages_out_total',
      help: 'PUBLISH packets forwarded to MQTT clients',
      registers,
    }),
    shadowWrites: new Counter({
      name: 'openpie_shadow_writes_total',
      help: 'Shadow writes committed (a batch is one), by whether they changed the shadow',
      labelNames: ['applied'] as const,
      registers,
    }),
    pointsWritten: new Counter({
      name: 'openpie_points_written_total',
      help: 'Data points stored in the time-series store',
      registers,
    }),
    queryDuration: new Histogram({
      name: 'openpie_feed_query_duration_seconds',
      help: 'Data-store (KairosDB-format) query latency in seconds, by kind (datapoints, tags) and outcome',
      labelNames: ['kind', 'outcome'] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    backendErrors: new Counter({
      name: 'openpie_backend_errors_total',
      help: 'Calls to a storage backend that failed with an error of the backend, by backend',
      labelNames: ['backend'] as const,
      registers,
    }),
    quotaRefusals: new Counter({
      name: 'openpie_quota_refusals_total',
      help: 'Requests refused because a quota was used up, by quota',
      labelNames: ['quota'] as const,
      registers,
    }),
    rateLimitRefusals: new Counter({
      name: 'openpie_rate_limit_refusals_total',
      help: 'Requests and MQTT publishes refused by the per-device rate limit, by transport',
      labelNames: ['transport'] as const,
      registers,
    }),
  };

  return {
    ...metrics,
    /** For the quota checks (issue 5): one call per refused request. */
    countQuotaRefusal(quota: string): void {
      metrics.quotaRefusals.inc({ quota });
    },
    countRateLimitRefusal(transport: Transport): void {
      metrics.rateLimitRefusals.inc({ transport });
    },
    /** Times a data-store query; failures are observed too, with outcome "error". */
    async timeQuery<T>(kind: 'datapoints' | 'tags', run: () => Promise<T>): Promise<T> {
      const stop = metrics.queryDuration.startTimer({ kind });
      try {
        const result = await run();
        stop({ outcome: 'ok' });
        return result;
      } catch (err) {
        stop({ outcome: 'error' });
        throw err;
      }
    },
  };
}

export type ServiceMetrics = ReturnType<typeof createServiceMetrics>;

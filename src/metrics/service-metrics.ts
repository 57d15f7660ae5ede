import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { registerRequestMetrics } from './request-metrics';

/** Latency buckets in seconds: 1 ms to 10 s, the span between a cached read and a long KairosDB-format query. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export type Transport = 'http' | 'coap' | 'mqtt';
/** Where credentials are checked: the Device API's transports, the data store, the admin API (and console log-in). */
/** `flow`: applications on NETPIE's Flow Channel (mqtt/flow-channel/), their keys and the device tokens in their topics. */
export type Door = Transport | 'data-store' | 'admin' | 'flow';

/**
 * Every metric of one service instance, in a registry of its own (never prom-client's global one), so several
 * services in one process, as in the tests, keep separate counts. Labels never carry device ids or topics: their
 * number must stay small whatever the devices do.
 */
export function createServiceMetrics() {
  const registry = new Registry();
  const registers = [registry];
  /** Where the queue gauge reads its figure at each scrape (the session store, once the broker has one). */
  let queuedMessages: (() => Promise<number>) | undefined;
  // process_* and nodejs_* (CPU, memory, event loop lag, GC). prom-client never stops these collectors; that costs
  // one GC observer per instance, which matters only to test runs with many stacks.
  collectDefaultMetrics({ register: registry });

  /**
   * MQTT messages as the broker counts them (broker-metrics.ts), one plain addition per message; the counters take
   * them when scraped. prom-client's inc() costs a label hash per call, and a fan-out counts every delivery.
   */
  const mqttTraffic = { in: 0, out: 0 };
  const metrics = {
    registry,
    mqttTraffic,
    // Counted on every request: plain arithmetic per request, the text made at scrape time (request-metrics.ts).
    http: registerRequestMetrics(registry, {
      counter: { name: 'openpie_http_requests_total', help: 'HTTP requests answered, by method, route template and status' },
      histogram: {
        name: 'openpie_http_request_duration_seconds',
        help: 'HTTP request latency in seconds, by method, route template and status',
        buckets: LATENCY_BUCKETS,
      },
    }),
    mqttConnections: new Gauge({ name: 'openpie_mqtt_connections', help: 'MQTT connections now open (authenticated)', registers }),
    mqttMessagesIn: new Counter({
      name: 'openpie_mqtt_messages_in_total',
      help: 'PUBLISH packets accepted from MQTT clients',
      registers,
      collect() {
        this.inc(mqttTraffic.in);
        mqttTraffic.in = 0;
      },
    }),
    mqttMessagesOut: new Counter({
      name: 'openpie_mqtt_messages_out_total',
      help: 'PUBLISH packets forwarded to MQTT clients',
      registers,
      collect() {
        this.inc(mqttTraffic.out);
        mqttTraffic.out = 0;
      },
    }),
    mqttQueuedMessages: new Gauge({
      name: 'openpie_mqtt_queued_messages',
      help: 'Messages waiting in persistent sessions\' queues (sent or not, not yet acknowledged); with a shared session store, the whole cluster\'s',
      registers,
      async collect() {
        if (queuedMessages) this.set(await queuedMessages().catch(() => Number.NaN));
      },
    }),
    mqttQueueDropped: new Counter({
      name: 'openpie_mqtt_queue_dropped_total',
      help: 'Queued messages dropped because a persistent session\'s queue was full (SESSION_QUEUE_LIMIT), counted by the node that queued',
      registers,
    }),
    applicationConnections: new Gauge({
      name: 'openpie_flow_connections',
      help: 'Application connections (NETPIE Flow Channel) open on this node',
      registers,
    }),
    mqttSessionStoreFailures: new Counter({
      name: 'openpie_mqtt_session_store_failures_total',
      help: 'Session-store calls of the MQTT broker that failed (each closed the connection it concerned), by call',
      labelNames: ['call'] as const,
      registers,
    }),
    shadowWrites: new Counter({
      name: 'openpie_shadow_writes_total',
      help: 'Shadow writes committed (a batch is one), by whether they changed the shadow',
      labelNames: ['applied'] as const,
      registers,
    }),
    shadowRevisionsLost: new Counter({
      name: 'openpie_shadow_revisions_lost_total',
      help: 'Shadow revisions a committed write could not keep in the history (STORE=cassandra, after two tries); the write stands',
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
    authFailures: new Counter({
      name: 'openpie_auth_failures_total',
      help: 'Failed or refused credential checks, by door (http, coap, mqtt, data-store, admin, flow) and reason (invalid_credentials, throttled)',
      labelNames: ['door', 'reason'] as const,
      registers,
    }),
    rateLimitRefusals: new Counter({
      name: 'openpie_rate_limit_refusals_total',
      help: 'Requests and MQTT publishes refused by the per-device rate limit, by transport (http, coap, mqtt, flow)',
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
    /** The source of openpie_mqtt_queued_messages, read at each scrape. */
    observeQueuedMessages(source: () => Promise<number>): void {
      queuedMessages = source;
    },
    /** A credential check that failed (`invalid_credentials`) or was refused before it ran (`throttled`). */
    countAuthFailure(door: Door, reason: 'invalid_credentials' | 'throttled'): void {
      metrics.authFailures.inc({ door, reason });
    },
    countRateLimitRefusal(transport: Transport | 'flow'): void {
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

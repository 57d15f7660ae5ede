import type { Database } from 'better-sqlite3';
import type { Logger } from 'pino';
import { version } from '../package.json';
import { createSqliteQuotaStore } from './adapters/sqlite-quota-store';
import { createSqliteSchemaStore } from './adapters/sqlite-schema-store';
import { createSqliteTriggerStore } from './adapters/sqlite-trigger-store';
import { Config } from './config';
import { DeviceStore } from './devices/port';
import { MessageBus } from './messaging/port';
import { countBackendErrors } from './metrics/backend-errors';
import { ServiceMetrics } from './metrics/service-metrics';
import { createMqttMessageQuota } from './quotas/mqtt-message-quota';
import { createQuotaService } from './quotas/service';
import { createSchemaService } from './schema/service';
import { createAddressGuard } from './triggers/address-guard';
import { createTriggerRunner } from './triggers/runner';
import { createTriggerService } from './triggers/service';
import { createWebhookSender } from './triggers/webhook';

export interface AutomationDeps {
  db: Database;
  devices: DeviceStore;
  logger: Logger;
  metrics: ServiceMetrics;
  now: () => number;
  webhooks: Config['webhooks'];
  /** The bus of MESSAGE hooks, asked for when a hook runs (the broker is built after the shadow service). */
  bus: () => MessageBus;
}

/**
 * Schemas, quotas, triggers and event hooks (issue 5 §3-§5), composed over the service's SQLite database: what
 * server.ts hands to the shadow service, the broker, CoAP, presence and the admin API.
 */
export function createAutomation({ db, devices, logger, metrics, now, webhooks, bus }: AutomationDeps) {
  const schemas = createSchemaService({ schemas: countBackendErrors('sqlite', createSqliteSchemaStore(db), metrics), devices });
  const quotas = createQuotaService({
    store: countBackendErrors('sqlite', createSqliteQuotaStore(db), metrics),
    now,
    logger,
    onRefused: (quota) => metrics.countQuotaRefusal(quota),
  });
  const triggerStore = countBackendErrors('sqlite', createSqliteTriggerStore(db), metrics);
  const guard = createAddressGuard(webhooks.allowHosts);
  const runner = createTriggerRunner({
    store: triggerStore,
    log: triggerStore,
    devices,
    quotas,
    webhooks: createWebhookSender({ guard, timeoutMs: webhooks.timeoutMs, maxAttempts: webhooks.maxAttempts, userAgent: `openpie-webhook/${version}` }),
    bus,
    now,
    logger,
  });
  return {
    schemas,
    quotas,
    messageQuota: createMqttMessageQuota(quotas, logger, now),
    triggers: createTriggerService({ store: triggerStore, log: triggerStore, devices, guard }),
    /** Runs triggers: ShadowDeps.onUpdated and Presence.observe take its methods. */
    runner,
    /** Lets deliveries under way finish and saves the quota counters; call before the database closes. */
    async close() {
      await runner.close();
      await quotas.close();
    },
  };
}

export type Automation = ReturnType<typeof createAutomation>;

import type { Logger } from 'pino';
import { version } from '../../package.json';
import { ChangeFeed } from '../cluster/port';
import { DeviceStore } from '../devices/port';
import { MessageBus } from '../messaging/port';
import { countBackendErrors } from '../metrics/backend-errors';
import { ServiceMetrics } from '../metrics/service-metrics';
import { QuotaService } from '../quotas/port';
import { createQuotaService } from '../quotas/service';
import { cachedSchemaStore } from '../schema/cached-schema-store';
import { createSchemaService } from '../schema/service';
import { createAddressGuard } from '../triggers/address-guard';
import { cachedTriggerStore } from '../triggers/cached-trigger-store';
import { createTriggerRunner } from '../triggers/runner';
import { createTriggerService } from '../triggers/service';
import { createWebhookSender, WebhookSettings } from '../triggers/webhook';
import { AutomationStores, StoreBackend } from './store-backend';

export interface AutomationDeps {
  /** Where schemas, triggers, hooks, deliveries and quotas are kept (`store.automation`), and by which backend. */
  store: Pick<StoreBackend, 'name' | 'automation'>;
  /** Change notices between nodes (the backbone's), for what nodes share. */
  changes: ChangeFeed;
  /** How long a node uses what it read of shared state, in ms (src/cluster/read-cache.ts). */
  sharedStateMaxAgeMs: number;
  /** NODE_ID: this node's rows of the shared quota ledger. */
  nodeId: string;
  devices: DeviceStore;
  logger: Logger;
  metrics: ServiceMetrics;
  now: () => number;
  webhooks: WebhookSettings;
  /** The bus of MESSAGE hooks, asked for when a hook runs (the broker is built after the shadow service). */
  bus: () => MessageBus;
}

/**
 * Schemas, quotas, triggers and event hooks (issue 5 §3-§5): what server.ts hands to the shadow service, the broker,
 * CoAP, presence and the admin API. With STORE=sqlite they are the node's own, in its database; with
 * STORE=cassandra every node of the cluster shares them (issue 14). Either way the node keeps copies of the schemas
 * and triggers it reads on every write, dropped by its own changes at once and by the change notices of other nodes
 * (docs/production.md "Shared state"); a lone node hears none, and has no other writer.
 */
export function createAutomation(deps: AutomationDeps) {
  const { store, changes, devices, logger, metrics, now, webhooks, bus } = deps;
  const backend = store.name;
  const stores: AutomationStores = store.automation;
  const cache = { maxAgeMs: deps.sharedStateMaxAgeMs, now };
  const schemaStore = countBackendErrors(backend, stores.schemas, metrics);
  const schemas = createSchemaService({ schemas: cachedSchemaStore(schemaStore, changes, cache), devices });
  const quotas: QuotaService = createQuotaService({
    limits: countBackendErrors(backend, stores.quotas.limits, metrics),
    ledger: countBackendErrors(backend, stores.quotas.ledger, metrics),
    node: deps.nodeId,
    changes,
    now,
    logger,
    onRefused: (quota) => metrics.countQuotaRefusal(quota),
    limitsMaxAgeMs: deps.sharedStateMaxAgeMs,
  });
  const triggerStore = countBackendErrors(backend, stores.triggers, metrics);
  const triggers = cachedTriggerStore(triggerStore, changes, cache);
  const deliveries = countBackendErrors(backend, stores.deliveries, metrics);
  const guard = createAddressGuard(webhooks.allowHosts);
  const runner = createTriggerRunner({
    store: triggers,
    log: deliveries,
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
    triggers: createTriggerService({ store: triggers, log: deliveries, devices, guard }),
    /** Runs triggers: ShadowDeps.onUpdated and Presence.observe take its methods. */
    runner,
    /** Lets deliveries under way finish and saves the quota counters; call before the stores close. */
    async close() {
      await runner.close();
      await quotas.close();
    },
  };
}

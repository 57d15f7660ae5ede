import type { Database } from 'better-sqlite3';
import { connectCassandra } from '../adapters/cassandra/cassandra-client';
import { createCassandraDeliveryLog } from '../adapters/cassandra/cassandra-delivery-log';
import { createCassandraDeviceStore } from '../adapters/cassandra/cassandra-device-store';
import { createCassandraNodeRegistry } from '../adapters/cassandra/cassandra-node-registry';
import { createCassandraQuotaLedger, createCassandraQuotaLimitStore } from '../adapters/cassandra/cassandra-quota-store';
import { cassandraReadinessCheck } from '../adapters/cassandra/cassandra-readiness';
import { createCassandraSchemaStore } from '../adapters/cassandra/cassandra-schema-store';
import { createCassandraShadowStore } from '../adapters/cassandra/cassandra-shadow-store';
import { createCassandraSigningKeyStore } from '../adapters/cassandra/cassandra-signing-key-store';
import { createCassandraTriggerStore } from '../adapters/cassandra/cassandra-trigger-store';
import { createFileSigningKeyStore } from '../adapters/files/file-signing-key-store';
import { createSqliteDeviceStore } from '../adapters/sqlite/sqlite-device-store';
import { createSqliteQuotaStore } from '../adapters/sqlite/sqlite-quota-store';
import { createSqliteSchemaStore } from '../adapters/sqlite/sqlite-schema-store';
import { createSqliteShadowStore } from '../adapters/sqlite/sqlite-shadow-store';
import { createSqliteTriggerStore } from '../adapters/sqlite/sqlite-trigger-store';
import { NodeRegistry } from '../cluster/port';
import { StoreSettings } from '../config/store-config';
import { DeviceStore } from '../devices/port';
import { ReadinessCheck } from '../health/port';
import { QuotaLedger, QuotaLimitStore, QuotaStore } from '../quotas/port';
import { SchemaStore } from '../schema/port';
import { ShadowStore } from '../shadows/port';
import { PointOutbox } from '../timeseries/port';
import { SigningKeyStore } from '../tokens/port';
import { DeliveryLog, TriggerStore } from '../triggers/port';

/**
 * What admins set and what the service counts, beside devices and shadows: in the node's SQLite database (one
 * node), or in Cassandra, shared by every node of a cluster (issue 14).
 */
export interface AutomationStores {
  readonly schemas: SchemaStore;
  readonly triggers: TriggerStore;
  readonly deliveries: DeliveryLog;
  /** `local`: counters and limits of this node alone; `shared`: limits and a ledger every node counts in. */
  readonly quotas: { readonly kind: 'local'; readonly store: QuotaStore } | { readonly kind: 'shared'; readonly limits: QuotaLimitStore; readonly ledger: QuotaLedger };
  readonly signingKeys: SigningKeyStore;
}

/** The registry, the shadows and the point outbox, as STORE chose (docs/production.md "Production backends: Cassandra"). */
export interface StoreBackend {
  /** The `backend` label of openpie_backend_errors_total. */
  readonly name: 'sqlite' | 'cassandra';
  readonly devices: DeviceStore;
  readonly shadows: ShadowStore & PointOutbox;
  readonly automation: AutomationStores;
  /** Where nodes register, when the store is shared by several (one running node per NODE_ID). */
  readonly nodes?: NodeRegistry;
  /** Checks of its own beyond the SQLite database's, which the service opens in any case. */
  readonly readiness: readonly ReadinessCheck[];
  /** Idempotent; before the SQLite database closes. */
  close(): Promise<void>;
}

export interface StoreBackendOptions {
  /** USER_TOKEN_KEY_FILE: where STORE=sqlite keeps the user-token signing key. */
  userTokenKeyFile: string;
}

/**
 * SQLite uses the service's database `db` for everything, the signing key excepted (a file). Cassandra is connected
 * (keyspace and tables created when missing) before this resolves, and holds everything nodes must share.
 */
export async function openStoreBackend(settings: StoreSettings, db: Database, options: StoreBackendOptions): Promise<StoreBackend> {
  if (settings.kind === 'sqlite') {
    const triggers = createSqliteTriggerStore(db);
    const shadows = createSqliteShadowStore(db);
    return {
      name: 'sqlite',
      devices: createSqliteDeviceStore(db),
      shadows,
      automation: {
        schemas: createSqliteSchemaStore(db),
        triggers,
        deliveries: triggers,
        quotas: { kind: 'local', store: createSqliteQuotaStore(db) },
        signingKeys: createFileSigningKeyStore(options.userTokenKeyFile),
      },
      readiness: [],
      close: async () => shadows.close(),
    };
  }
  const conn = await connectCassandra(settings);
  return {
    name: 'cassandra',
    devices: createCassandraDeviceStore(conn),
    // A write's quota charge is counted by the quota service as it is reserved (src/quotas/cluster-quota-service.ts).
    shadows: createCassandraShadowStore(conn),
    automation: {
      schemas: createCassandraSchemaStore(conn),
      triggers: createCassandraTriggerStore(conn),
      deliveries: createCassandraDeliveryLog(conn),
      quotas: { kind: 'shared', limits: createCassandraQuotaLimitStore(conn), ledger: createCassandraQuotaLedger(conn) },
      signingKeys: createCassandraSigningKeyStore(conn),
    },
    nodes: createCassandraNodeRegistry(conn),
    readiness: [cassandraReadinessCheck('cassandra', conn)],
    close: conn.close,
  };
}

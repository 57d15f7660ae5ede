import type { Database } from 'better-sqlite3';
import { createCassandraApplicationStore } from '../adapters/cassandra/cassandra-application-store';
import { connectCassandra } from '../adapters/cassandra/cassandra-client';
import { createCassandraAuditLog } from '../adapters/cassandra/cassandra-audit-log';
import { createCassandraDeliveryLog } from '../adapters/cassandra/cassandra-delivery-log';
import { checkCassandraCredentialKey, createCassandraCredentialMigration } from '../adapters/cassandra/cassandra-credential-migration';
import { createCassandraDatatagStore } from '../adapters/cassandra/cassandra-datatag-store';
import { createCassandraDesiredStore } from '../adapters/cassandra/cassandra-desired-store';
import { createCassandraDeviceStore } from '../adapters/cassandra/cassandra-device-store';
import { createCassandraNodeRegistry } from '../adapters/cassandra/cassandra-node-registry';
import { createCassandraOperatorStore } from '../adapters/cassandra/cassandra-operator-store';
import { createCassandraProjectRetentionStore } from '../adapters/cassandra/cassandra-project-retention-store';
import { createCassandraRollupStore } from '../adapters/cassandra/cassandra-rollup-store';
import { createCassandraQuotaLedger, createCassandraQuotaLimitStore } from '../adapters/cassandra/cassandra-quota-store';
import { cassandraReadinessCheck } from '../adapters/cassandra/cassandra-readiness';
import { createCassandraRevokedTokens } from '../adapters/cassandra/cassandra-revoked-tokens';
import { createCassandraSchemaStore } from '../adapters/cassandra/cassandra-schema-store';
import { createCassandraShadowHistory } from '../adapters/cassandra/cassandra-shadow-history';
import { createCassandraShadowStore } from '../adapters/cassandra/cassandra-shadow-store';
import { createCassandraSigningKeyStore } from '../adapters/cassandra/cassandra-signing-key-store';
import { createCassandraTriggerStore } from '../adapters/cassandra/cassandra-trigger-store';
import { createFileSigningKeyStore } from '../adapters/files/file-signing-key-store';
import { createSqliteApplicationStore } from '../adapters/sqlite/sqlite-application-store';
import { checkSqliteCredentialKey, createSqliteCredentialMigration } from '../adapters/sqlite/sqlite-credential-migration';
import { createSqliteAuditLog } from '../adapters/sqlite/sqlite-audit-log';
import { createSqliteDatatagStore } from '../adapters/sqlite/sqlite-datatag-store';
import { createSqliteDesiredStore } from '../adapters/sqlite/sqlite-desired-store';
import { createSqliteDeviceStore } from '../adapters/sqlite/sqlite-device-store';
import { createSqliteOperatorStore } from '../adapters/sqlite/sqlite-operator-store';
import { createSqliteProjectRetentionStore } from '../adapters/sqlite/sqlite-project-retention-store';
import { createSqliteRollupStore } from '../adapters/sqlite/sqlite-rollup-store';
import { createSqliteQuotaLedger, createSqliteQuotaLimitStore } from '../adapters/sqlite/sqlite-quota-store';
import { createSqliteRevokedTokens } from '../adapters/sqlite/sqlite-revoked-tokens';
import { createSqliteSchemaStore } from '../adapters/sqlite/sqlite-schema-store';
import { createSqliteShadowHistory } from '../adapters/sqlite/sqlite-shadow-history';
import { createSqliteShadowStore } from '../adapters/sqlite/sqlite-shadow-store';
import { createSqliteTriggerStore } from '../adapters/sqlite/sqlite-trigger-store';
import { ApplicationStore } from '../applications/port';
import { NodeRegistry } from '../cluster/port';
import { StoreSettings } from '../config/store-config';
import { DatatagStore } from '../datatags/port';
import { DesiredStore } from '../desired/port';
import { CredentialKey } from '../devices/credential-key';
import { CredentialMigration, DeviceStore } from '../devices/port';
import { ReadinessCheck } from '../health/port';
import { AuditLog, OperatorStore } from '../operators/port';
import { QuotaLedger, QuotaLimitStore } from '../quotas/port';
import { SchemaStore } from '../schema/port';
import { ShadowHistory } from '../shadows/history';
import { ShadowStore } from '../shadows/port';
import { PointOutbox } from '../timeseries/port';
import { ProjectRetentionStore } from '../timeseries/project-retention';
import { RollupStore } from '../timeseries/rollups/port';
import { RevokedTokens, SigningKeyStore } from '../tokens/port';
import { DeliveryLog, TriggerStore } from '../triggers/port';

/**
 * What admins set and what the service counts, beside devices and shadows: in the node's SQLite database (one
 * node), or in Cassandra, shared by every node of a cluster (issue 14).
 */
export interface AutomationStores {
  readonly schemas: SchemaStore;
  /** Datatags of devices and group defaults (issue 23 §1), read on every write like schemas. */
  readonly datatags: DatatagStore;
  readonly triggers: TriggerStore;
  readonly deliveries: DeliveryLog;
  /** The limits, and the ledger of the counts: this node's alone (QuotaLedger.singleNode), or one every node counts in. */
  readonly quotas: { readonly limits: QuotaLimitStore; readonly ledger: QuotaLedger };
  readonly signingKeys: SigningKeyStore;
  /** User tokens revoked before they expire (issue 20 §6): in the database beside the registry, or shared in Cassandra. */
  readonly revokedTokens: RevokedTokens;
}

/** The registry, the shadows and the point outbox, as STORE chose (docs/production.md "Production backends: Cassandra"). */
export interface StoreBackend {
  /** The `backend` label of openpie_backend_errors_total. */
  readonly name: 'sqlite' | 'cassandra';
  readonly devices: DeviceStore;
  /** Credentials an older release kept in plaintext, rewritten as digests (docs/production.md "Rolling upgrades"). */
  readonly credentialMigration: CredentialMigration;
  readonly shadows: ShadowStore & PointOutbox;
  /** The shadows' kept revisions (issue 25 §3), which `shadows` writes with each commit. */
  readonly shadowHistory: ShadowHistory;
  readonly automation: AutomationStores;
  /** Operator accounts and the audit log of admin changes (issue 20 §5), shared by the nodes like the registry. */
  readonly operators: OperatorStore;
  readonly audit: AuditLog;
  /** Application keys (issue 22), shared by the nodes like the registry: every node admits a key made on any. */
  readonly applications: ApplicationStore;
  /** Desired documents (issue 25 §2), beside the shadows they are compared with. */
  readonly desired: DesiredStore;
  /** Projects' own retention of points (issue 23 §2), shared by the nodes like the registry. */
  readonly projectRetention: ProjectRetentionStore;
  /** Projects' roll-up declarations (issue 23 §3). */
  readonly rollups: RollupStore;
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
  /** What device tokens and secrets are digested with (CREDENTIAL_KEY_FILE, devices/credential-key.ts). */
  credentialKey: CredentialKey;
  /** NODE_ID, recorded beside a migration this node completes. */
  nodeId: string;
  /** AUDIT_RETENTION_DAYS: how long the audit log keeps an entry. */
  auditRetentionDays: number;
  /** A committed shadow write whose revisions the history could not keep (STORE=cassandra writes them after it). */
  onRevisionLost(deviceid: string, err: unknown): void;
}

/**
 * SQLite uses the service's database `db` for everything, the signing key excepted (a file). Cassandra is connected
 * (keyspace and tables created when missing) before this resolves, and holds everything nodes must share.
 */
export async function openStoreBackend(settings: StoreSettings, db: Database, options: StoreBackendOptions): Promise<StoreBackend> {
  if (settings.kind === 'sqlite') {
    const triggers = createSqliteTriggerStore(db);
    const shadows = createSqliteShadowStore(db);
    // One node owns the file: credentials an older release kept in plaintext become digests at once, on every start.
    checkSqliteCredentialKey(db, options.credentialKey);
    const credentialMigration = createSqliteCredentialMigration(db, options.credentialKey);
    await credentialMigration.complete();
    return {
      name: 'sqlite',
      devices: createSqliteDeviceStore(db, options.credentialKey),
      credentialMigration,
      shadows,
      shadowHistory: createSqliteShadowHistory(db),
      operators: createSqliteOperatorStore(db),
      audit: createSqliteAuditLog(db, { retentionDays: options.auditRetentionDays }),
      applications: createSqliteApplicationStore(db),
      desired: createSqliteDesiredStore(db),
      projectRetention: createSqliteProjectRetentionStore(db),
      rollups: createSqliteRollupStore(db),
      automation: {
        schemas: createSqliteSchemaStore(db),
        datatags: createSqliteDatatagStore(db),
        triggers,
        deliveries: triggers,
        quotas: { limits: createSqliteQuotaLimitStore(db), ledger: createSqliteQuotaLedger(db) },
        signingKeys: createFileSigningKeyStore(options.userTokenKeyFile),
        revokedTokens: createSqliteRevokedTokens(db),
      },
      readiness: [],
      close: async () => shadows.close(),
    };
  }
  const conn = await connectCassandra(settings);
  // Nodes of an older release may still run: their plaintext rows wait for an operator's `complete`.
  await checkCassandraCredentialKey(conn, options.credentialKey).catch(async (err: unknown) => {
    await conn.close();
    throw err;
  });
  return {
    name: 'cassandra',
    devices: createCassandraDeviceStore(conn, options.credentialKey),
    credentialMigration: createCassandraCredentialMigration(conn, options.credentialKey, options.nodeId),
    // A write's quota charge is saved with this node's other counts once committed (src/quotas/service.ts).
    shadows: createCassandraShadowStore(conn, options.onRevisionLost),
    shadowHistory: createCassandraShadowHistory(conn),
    operators: createCassandraOperatorStore(conn),
    audit: createCassandraAuditLog(conn, { retentionDays: options.auditRetentionDays }),
    applications: createCassandraApplicationStore(conn),
    desired: createCassandraDesiredStore(conn),
    projectRetention: createCassandraProjectRetentionStore(conn),
    rollups: createCassandraRollupStore(conn),
    automation: {
      schemas: createCassandraSchemaStore(conn),
      datatags: createCassandraDatatagStore(conn),
      triggers: createCassandraTriggerStore(conn),
      deliveries: createCassandraDeliveryLog(conn),
      quotas: { limits: createCassandraQuotaLimitStore(conn), ledger: createCassandraQuotaLedger(conn) },
      signingKeys: createCassandraSigningKeyStore(conn),
      revokedTokens: createCassandraRevokedTokens(conn),
    },
    nodes: createCassandraNodeRegistry(conn),
    readiness: [cassandraReadinessCheck('cassandra', conn)],
    close: conn.close,
  };
}

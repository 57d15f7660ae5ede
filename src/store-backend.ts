import type { Database } from 'better-sqlite3';
import { connectCassandra } from './adapters/cassandra-client';
import { createCassandraDeviceStore } from './adapters/cassandra-device-store';
import { cassandraReadinessCheck } from './adapters/cassandra-readiness';
import { createCassandraShadowStore } from './adapters/cassandra-shadow-store';
import { createSqliteDeviceStore } from './adapters/sqlite-device-store';
import { usageAdder } from './adapters/sqlite-quota-store';
import { createSqliteShadowStore } from './adapters/sqlite-shadow-store';
import { DeviceStore } from './devices/port';
import { ReadinessCheck } from './health/port';
import { PointOutbox, ShadowStore } from './shadows/port';
import { StoreSettings } from './store-config';

/** The registry, the shadows and the point outbox, as STORE chose (README "Production backends: Cassandra"). */
export interface StoreBackend {
  /** The `backend` label of openpie_backend_errors_total. */
  readonly name: 'sqlite' | 'cassandra';
  readonly devices: DeviceStore;
  readonly shadows: ShadowStore & PointOutbox;
  /** Checks of its own beyond the SQLite database's, which the service opens in any case. */
  readonly readiness: readonly ReadinessCheck[];
  /** Idempotent; before the SQLite database closes. */
  close(): Promise<void>;
}

/**
 * SQLite uses the service's database `db`. Cassandra is connected (keyspace and tables created when missing)
 * before this resolves; quota counters stay in `db`, so a shadow write's charge is added after its commit there.
 */
export async function openStoreBackend(settings: StoreSettings, db: Database): Promise<StoreBackend> {
  if (settings.kind === 'sqlite') {
    return {
      name: 'sqlite',
      devices: createSqliteDeviceStore(db),
      shadows: createSqliteShadowStore(db),
      readiness: [],
      close: async () => undefined,
    };
  }
  const conn = await connectCassandra(settings);
  return {
    name: 'cassandra',
    devices: createCassandraDeviceStore(conn),
    shadows: createCassandraShadowStore(conn, { recordCharge: usageAdder(db) }),
    readiness: [cassandraReadinessCheck('cassandra', conn)],
    close: conn.close,
  };
}

import { types } from 'cassandra-driver';
import { randomUUID } from 'node:crypto';
import { createCassandraApplicationStore } from '../../../src/adapters/cassandra/cassandra-application-store';
import { CassandraConnection } from '../../../src/adapters/cassandra/cassandra-client';
import { createCassandraDeliveryLog } from '../../../src/adapters/cassandra/cassandra-delivery-log';
import { createCassandraDatatagStore } from '../../../src/adapters/cassandra/cassandra-datatag-store';
import { createCassandraDesiredStore } from '../../../src/adapters/cassandra/cassandra-desired-store';
import { createCassandraDeviceStore } from '../../../src/adapters/cassandra/cassandra-device-store';
import { createCassandraNodeRegistry } from '../../../src/adapters/cassandra/cassandra-node-registry';
import { createCassandraProjectRetentionStore } from '../../../src/adapters/cassandra/cassandra-project-retention-store';
import { createCassandraQuotaLedger, createCassandraQuotaLimitStore } from '../../../src/adapters/cassandra/cassandra-quota-store';
import { createCassandraRevokedTokens } from '../../../src/adapters/cassandra/cassandra-revoked-tokens';
import { createCassandraRollupStore } from '../../../src/adapters/cassandra/cassandra-rollup-store';
import { createCassandraSchemaStore } from '../../../src/adapters/cassandra/cassandra-schema-store';
import { createCassandraShadowHistory } from '../../../src/adapters/cassandra/cassandra-shadow-history';
import { createCassandraShadowStore } from '../../../src/adapters/cassandra/cassandra-shadow-store';
import { createCassandraSigningKeyStore } from '../../../src/adapters/cassandra/cassandra-signing-key-store';
import { createCassandraTriggerStore } from '../../../src/adapters/cassandra/cassandra-trigger-store';
import { CassandraTestSettings, cassandraOrSkip, connectTestKeyspace, dropKeyspace, randomKeyspace } from '../../helpers/cassandra';
import { storeFleetSource } from '../../../src/fleet/store-fleet-source';
import { applicationStoreContract } from './application-store.contract';
import { datatagStoreContract } from './datatag-store.contract';
import { desiredStoreContract } from './desired-store.contract';
import { deviceStoreContract } from './device-store.contract';
import { fleetSourceContract } from './fleet-source.contract';
import { nodeRegistryContract } from './node-registry.contract';
import { projectRetentionContract } from './project-retention.contract';
import { quotaLedgerContract } from './quota-ledger.contract';
import { quotaLimitsContract } from './quota-limits.contract';
import { revokedTokensContract } from './revoked-tokens.contract';
import { rollupStoreContract } from './rollup-store.contract';
import { schemaStoreContract } from './schema-store.contract';
import { shadowHistoryContract } from './shadow-history.contract';
import { shadowStoreContract } from './shadow-store.contract';
import { signingKeyStoreContract } from './signing-key-store.contract';
import { OpenStores, Stores, testCredentialKey } from './store-under-test';
import { triggerStoreContract } from './trigger-store.contract';

/** Every Cassandra adapter over one connection, as the service builds them. */
function storesOver(conn: CassandraConnection): Stores {
  return {
    devices: createCassandraDeviceStore(conn, testCredentialKey),
    async writeAsOlderRelease(device, token, secret) {
      await conn.client.execute(
        `INSERT INTO ${conn.tables.devices} (deviceid, "token", secret, alias, groupid, projectid, enabled, banned, description, livenessttl, created)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [device.deviceid, token, secret, device.alias, device.groupid, device.projectid, device.enabled, device.banned,
          device.description, device.livenessttl, types.Long.fromNumber(device.created)], { prepare: true });
      await conn.client.execute(`INSERT INTO ${conn.tables.shadows} (deviceid, rev, tail) VALUES (?, 0, minTimeuuid(0))`, [device.deviceid], { prepare: true });
    },
    async storedCredentials(deviceid) {
      const row = (await conn.client.execute(`SELECT "token", secret FROM ${conn.tables.devices} WHERE deviceid = ?`, [deviceid], { prepare: true })).first();
      return { token: String(row.get('token')), secret: String(row.get('secret')) };
    },
    shadows: createCassandraShadowStore(conn),
    shadowHistory: createCassandraShadowHistory(conn),
    schemas: createCassandraSchemaStore(conn),
    desired: createCassandraDesiredStore(conn),
    triggers: createCassandraTriggerStore(conn),
    deliveries: createCassandraDeliveryLog(conn),
    quotaLimits: createCassandraQuotaLimitStore(conn),
    freshSigningKeys: () => createCassandraSigningKeyStore(conn, `test-${randomUUID()}`),
  };
}

describe('store contracts on Cassandra', function () {
  // Creating and dropping a keyspace takes a few seconds; lightweight transactions take milliseconds each.
  this.timeout(60_000);
  let settings: CassandraTestSettings;
  before(function () {
    settings = cassandraOrSkip(this);
  });

  /** A keyspace of its own, dropped by `dispose`. */
  async function openKeyspace() {
    const keyspace = randomKeyspace();
    const conn = await connectTestKeyspace(settings, keyspace);
    return {
      keyspace,
      conn,
      async dispose(current = conn) {
        await current.close();
        await dropKeyspace(settings, keyspace);
      },
    };
  }

  async function openCassandraStores(): Promise<OpenStores> {
    const opened = await openKeyspace();
    let conn = opened.conn;
    const stores: OpenStores = {
      ...storesOver(conn),
      async reopen() {
        await conn.close();
        conn = await connectTestKeyspace(settings, opened.keyspace);
        Object.assign(stores, storesOver(conn));
      },
      dispose: () => opened.dispose(conn),
      async dropTokenIndex() {
        await conn.client.execute(`DROP INDEX IF EXISTS ${opened.keyspace}.devices_by_token`);
      },
    };
    return stores;
  }

  deviceStoreContract('Cassandra', openCassandraStores);
  fleetSourceContract('Cassandra', async () => {
    const stores = await openCassandraStores();
    return { stores, source: storeFleetSource(stores.devices, stores.shadows), dispose: () => stores.dispose() };
  });
  shadowStoreContract('Cassandra', openCassandraStores);
  shadowHistoryContract('Cassandra', openCassandraStores);
  schemaStoreContract('Cassandra', openCassandraStores);
  desiredStoreContract('Cassandra', openCassandraStores);
  datatagStoreContract('Cassandra', async () => {
    const opened = await openKeyspace();
    let conn = opened.conn;
    let store = createCassandraDatatagStore(conn);
    return {
      store: () => store,
      async reopen() {
        await conn.close();
        conn = await connectTestKeyspace(settings, opened.keyspace);
        store = createCassandraDatatagStore(conn);
      },
      dispose: () => opened.dispose(conn),
    };
  });
  rollupStoreContract('Cassandra', async () => {
    const opened = await openKeyspace();
    let conn = opened.conn;
    let store = createCassandraRollupStore(conn);
    return {
      store: () => store,
      async reopen() {
        await conn.close();
        conn = await connectTestKeyspace(settings, opened.keyspace);
        store = createCassandraRollupStore(conn);
      },
      dispose: () => opened.dispose(conn),
    };
  });
  triggerStoreContract('Cassandra', openCassandraStores);
  quotaLimitsContract('Cassandra', openCassandraStores);
  signingKeyStoreContract('Cassandra', openCassandraStores);
  revokedTokensContract('Cassandra', async () => {
    const opened = await openKeyspace();
    const { client, tables } = opened.conn;
    return {
      revoked: createCassandraRevokedTokens(opened.conn),
      another: () => createCassandraRevokedTokens(opened.conn),
      storedJtis: async () => (await client.execute(`SELECT jti FROM ${tables.revokedTokens}`)).rows.map((r) => String(r.get('jti'))),
      dispose: () => opened.dispose(),
    };
  });
  applicationStoreContract('Cassandra', async () => {
    const opened = await openKeyspace();
    const { client, tables } = opened.conn;
    return {
      store: createCassandraApplicationStore(opened.conn),
      another: () => createCassandraApplicationStore(opened.conn),
      storedSecret: async (key) =>
        String((await client.execute(`SELECT secret FROM ${tables.applications} WHERE app_key = ?`, [key], { prepare: true })).first().get('secret')),
      dispose: () => opened.dispose(),
    };
  });
  projectRetentionContract('Cassandra', async () => {
    const opened = await openKeyspace();
    return {
      store: createCassandraProjectRetentionStore(opened.conn),
      another: () => createCassandraProjectRetentionStore(opened.conn),
      dispose: () => opened.dispose(),
    };
  });
  quotaLedgerContract('Cassandra', async () => {
    const opened = await openKeyspace();
    return { ledger: createCassandraQuotaLedger(opened.conn), dispose: () => opened.dispose() };
  });
  nodeRegistryContract('Cassandra', async () => {
    const opened = await openKeyspace();
    return { nodes: createCassandraNodeRegistry(opened.conn), dispose: () => opened.dispose() };
  });
});

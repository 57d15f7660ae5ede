import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { createSqliteApplicationStore } from '../../../src/adapters/sqlite/sqlite-application-store';
import { createFileSigningKeyStore } from '../../../src/adapters/files/file-signing-key-store';
import { openSqliteDatabase } from '../../../src/adapters/sqlite/sqlite-database';
import { createSqliteDatatagStore } from '../../../src/adapters/sqlite/sqlite-datatag-store';
import { createSqliteDesiredStore } from '../../../src/adapters/sqlite/sqlite-desired-store';
import { createSqliteDeviceStore } from '../../../src/adapters/sqlite/sqlite-device-store';
import { createSqliteFleetSource } from '../../../src/adapters/sqlite/sqlite-fleet-source';
import { createSqliteProjectRetentionStore } from '../../../src/adapters/sqlite/sqlite-project-retention-store';
import { createSqliteQuotaLimitStore } from '../../../src/adapters/sqlite/sqlite-quota-store';
import { createSqliteRevokedTokens } from '../../../src/adapters/sqlite/sqlite-revoked-tokens';
import { createSqliteRollupStore } from '../../../src/adapters/sqlite/sqlite-rollup-store';
import { createSqliteSchemaStore } from '../../../src/adapters/sqlite/sqlite-schema-store';
import { createSqliteShadowHistory } from '../../../src/adapters/sqlite/sqlite-shadow-history';
import { createSqliteShadowStore } from '../../../src/adapters/sqlite/sqlite-shadow-store';
import { createSqliteTriggerStore } from '../../../src/adapters/sqlite/sqlite-trigger-store';
import { applicationStoreContract } from './application-store.contract';
import { datatagStoreContract } from './datatag-store.contract';
import { desiredStoreContract } from './desired-store.contract';
import { deviceStoreContract } from './device-store.contract';
import { fleetSourceContract } from './fleet-source.contract';
import { projectRetentionContract } from './project-retention.contract';
import { quotaLimitsContract } from './quota-limits.contract';
import { revokedTokensContract } from './revoked-tokens.contract';
import { rollupStoreContract } from './rollup-store.contract';
import { schemaStoreContract } from './schema-store.contract';
import { shadowHistoryContract } from './shadow-history.contract';
import { shadowStoreContract } from './shadow-store.contract';
import { signingKeyStoreContract } from './signing-key-store.contract';
import { triggerStoreContract } from './trigger-store.contract';
import { OpenStores, Stores, testCredentialKey } from './store-under-test';

/** The schema version of a database made before devices_by_token, the sixth migration (sqlite-database.ts). */
const BEFORE_TOKEN_INDEX = 5;

/** Every embedded adapter over one database (and the key file beside it), as the service builds them. */
function storesOver(db: Database.Database, dir: string): Stores {
  const triggers = createSqliteTriggerStore(db);
  return {
    devices: createSqliteDeviceStore(db, testCredentialKey),
    async writeAsOlderRelease(device, token, secret) {
      db.prepare(`INSERT INTO devices (deviceid, token, secret, alias, groupid, projectid, enabled, banned, description, livenessttl, created)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(device.deviceid, token, secret, device.alias, device.groupid, device.projectid,
        device.enabled ? 1 : 0, device.banned ? 1 : 0, device.description, device.livenessttl, device.created);
    },
    async storedCredentials(deviceid) {
      return db.prepare('SELECT token, secret FROM devices WHERE deviceid = ?').get(deviceid) as { token: string; secret: string };
    },
    shadows: createSqliteShadowStore(db),
    shadowHistory: createSqliteShadowHistory(db),
    schemas: createSqliteSchemaStore(db),
    desired: createSqliteDesiredStore(db),
    triggers,
    deliveries: triggers,
    quotaLimits: createSqliteQuotaLimitStore(db),
    freshSigningKeys: () => createFileSigningKeyStore(join(dir, 'keys', `${randomUUID()}.json`)),
  };
}

/** The SQLite shadow store keeps a connection of its own for its group commits (sqlite-shadow-store.ts). */
const closeShadows = (stores: Stores) => (stores.shadows as ReturnType<typeof createSqliteShadowStore>).close();

/** The embedded adapters on a database file in a temp dir of their own. */
async function openSqliteStores(): Promise<OpenStores> {
  const dir = mkdtempSync(join(tmpdir(), 'openpie-contract-'));
  let db = openSqliteDatabase(dir);
  const stores: OpenStores = {
    ...storesOver(db, dir),
    async reopen() {
      closeShadows(stores);
      db.close();
      db = openSqliteDatabase(dir);
      Object.assign(stores, storesOver(db, dir));
    },
    async dispose() {
      closeShadows(stores);
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
    async dropTokenIndex() {
      db.exec('DROP INDEX devices_by_token');
      db.pragma(`user_version = ${BEFORE_TOKEN_INDEX}`);
    },
  };
  return stores;
}

describe('store contracts on SQLite', () => {
  deviceStoreContract('SQLite', openSqliteStores);
  shadowStoreContract('SQLite', openSqliteStores);
  shadowHistoryContract('SQLite', openSqliteStores);
  schemaStoreContract('SQLite', openSqliteStores);
  desiredStoreContract('SQLite', openSqliteStores);
  fleetSourceContract('SQLite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'openpie-fleet-'));
    const db = openSqliteDatabase(dir);
    const stores = storesOver(db, dir);
    return {
      stores,
      source: createSqliteFleetSource(db),
      async dispose() {
        closeShadows(stores);
        db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
  datatagStoreContract('SQLite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'openpie-datatags-'));
    let db = openSqliteDatabase(dir);
    let store = createSqliteDatatagStore(db);
    return {
      store: () => store,
      async reopen() {
        db.close();
        db = openSqliteDatabase(dir);
        store = createSqliteDatatagStore(db);
      },
      async dispose() {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
  rollupStoreContract('SQLite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'openpie-rollups-'));
    let db = openSqliteDatabase(dir);
    let store = createSqliteRollupStore(db);
    return {
      store: () => store,
      async reopen() {
        db.close();
        db = openSqliteDatabase(dir);
        store = createSqliteRollupStore(db);
      },
      async dispose() {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
  triggerStoreContract('SQLite', openSqliteStores);
  quotaLimitsContract('SQLite', openSqliteStores);
  signingKeyStoreContract('SQLite (a key file)', openSqliteStores);
  revokedTokensContract('SQLite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'openpie-revoked-'));
    const db = openSqliteDatabase(dir);
    return {
      revoked: createSqliteRevokedTokens(db),
      another: () => createSqliteRevokedTokens(db),
      storedJtis: async () => (db.prepare('SELECT jti FROM revoked_tokens').all() as { jti: string }[]).map((r) => r.jti),
      async dispose() {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
  applicationStoreContract('SQLite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'openpie-applications-'));
    const db = openSqliteDatabase(dir);
    return {
      store: createSqliteApplicationStore(db),
      another: () => createSqliteApplicationStore(db),
      storedSecret: async (key) => (db.prepare('SELECT secret FROM applications WHERE app_key = ?').get(key) as { secret: string }).secret,
      async dispose() {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });

  projectRetentionContract('SQLite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'openpie-retention-'));
    const db = openSqliteDatabase(dir);
    return {
      store: createSqliteProjectRetentionStore(db),
      another: () => createSqliteProjectRetentionStore(db),
      async dispose() {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });

  describe('the registry database', () => {
    const planOf = (db: Database.Database) =>
      (db.prepare('EXPLAIN QUERY PLAN SELECT * FROM devices WHERE token = ?').all('t') as { detail: string }[]).map((r) => r.detail);

    it('finds a device by token through an index, in a new database and in one made before the index (issue 17)', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'openpie-registry-'));
      try {
        let db = openSqliteDatabase(dir);
        expect(planOf(db).join()).to.contain('USING INDEX devices_by_token');
        db.exec('DROP INDEX devices_by_token');
        db.pragma(`user_version = ${BEFORE_TOKEN_INDEX}`);
        db.close();

        db = openSqliteDatabase(dir);

        expect(planOf(db).join()).to.contain('USING INDEX devices_by_token');
        db.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});

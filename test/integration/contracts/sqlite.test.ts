import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { createFileSigningKeyStore } from '../../../src/adapters/files/file-signing-key-store';
import { openSqliteDatabase } from '../../../src/adapters/sqlite/sqlite-database';
import { createSqliteDeviceStore } from '../../../src/adapters/sqlite/sqlite-device-store';
import { createSqliteQuotaStore } from '../../../src/adapters/sqlite/sqlite-quota-store';
import { createSqliteSchemaStore } from '../../../src/adapters/sqlite/sqlite-schema-store';
import { createSqliteShadowStore } from '../../../src/adapters/sqlite/sqlite-shadow-store';
import { createSqliteTriggerStore } from '../../../src/adapters/sqlite/sqlite-trigger-store';
import { deviceStoreContract } from './device-store.contract';
import { quotaLimitsContract } from './quota-limits.contract';
import { schemaStoreContract } from './schema-store.contract';
import { shadowStoreContract } from './shadow-store.contract';
import { signingKeyStoreContract } from './signing-key-store.contract';
import { triggerStoreContract } from './trigger-store.contract';
import { OpenStores, Stores } from './store-under-test';

/** Every embedded adapter over one database (and the key file beside it), as the service builds them. */
function storesOver(db: Database.Database, dir: string): Stores {
  const triggers = createSqliteTriggerStore(db);
  return {
    devices: createSqliteDeviceStore(db),
    shadows: createSqliteShadowStore(db),
    schemas: createSqliteSchemaStore(db),
    triggers,
    deliveries: triggers,
    quotaLimits: createSqliteQuotaStore(db),
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
      // devices_by_token is the latest migration (sqlite-database.ts): one version back is a database made before it.
      db.exec('DROP INDEX devices_by_token');
      db.pragma(`user_version = ${(db.pragma('user_version', { simple: true }) as number) - 1}`);
    },
  };
  return stores;
}

describe('store contracts on SQLite', () => {
  deviceStoreContract('SQLite', openSqliteStores);
  shadowStoreContract('SQLite', openSqliteStores);
  schemaStoreContract('SQLite', openSqliteStores);
  triggerStoreContract('SQLite', openSqliteStores);
  quotaLimitsContract('SQLite', openSqliteStores);
  signingKeyStoreContract('SQLite (a key file)', openSqliteStores);

  describe('the registry database', () => {
    const planOf = (db: Database.Database) =>
      (db.prepare('EXPLAIN QUERY PLAN SELECT * FROM devices WHERE token = ?').all('t') as { detail: string }[]).map((r) => r.detail);

    it('finds a device by token through an index, in a new database and in one made before the index (issue 17)', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'openpie-registry-'));
      try {
        let db = openSqliteDatabase(dir);
        expect(planOf(db).join()).to.contain('USING INDEX devices_by_token');
        db.exec('DROP INDEX devices_by_token');
        db.pragma(`user_version = ${(db.pragma('user_version', { simple: true }) as number) - 1}`);
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

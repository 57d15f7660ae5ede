import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteDatabase } from '../../../src/adapters/sqlite-database';
import { createSqliteDeviceStore } from '../../../src/adapters/sqlite-device-store';
import { createSqliteShadowStore } from '../../../src/adapters/sqlite-shadow-store';
import { deviceStoreContract } from './device-store.contract';
import { shadowStoreContract } from './shadow-store.contract';
import { OpenStores } from './store-under-test';

/** The embedded adapters on a database file in a temp dir of their own. */
async function openSqliteStores(): Promise<OpenStores> {
  const dir = mkdtempSync(join(tmpdir(), 'openpie-contract-'));
  let db = openSqliteDatabase(dir);
  const stores: OpenStores = {
    devices: createSqliteDeviceStore(db),
    shadows: createSqliteShadowStore(db),
    async reopen() {
      db.close();
      db = openSqliteDatabase(dir);
      stores.devices = createSqliteDeviceStore(db);
      stores.shadows = createSqliteShadowStore(db);
    },
    async dispose() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return stores;
}

describe('store contracts on SQLite', () => {
  deviceStoreContract('SQLite', openSqliteStores);
  shadowStoreContract('SQLite', openSqliteStores);
});

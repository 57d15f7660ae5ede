import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteDatabase } from '../../../src/adapters/sqlite/sqlite-database';
import { createSqliteDeviceStore } from '../../../src/adapters/sqlite/sqlite-device-store';
import { createSqliteShadowStore } from '../../../src/adapters/sqlite/sqlite-shadow-store';
import { Shadow } from '../../../src/shadows/shadow';
import { aDeviceRecord, testCredentialKey } from './store-under-test';

describe('the SQLite shadow history: expired revisions', () => {
  it('are deleted by a later shadow commit, whichever device it writes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'openpie-revisions-'));
    const db = openSqliteDatabase(dir);
    const shadows = createSqliteShadowStore(db);
    try {
      const devices = createSqliteDeviceStore(db, testCredentialKey);
      const [old, other] = [aDeviceRecord(), aDeviceRecord()];
      for (const d of [old, other]) await devices.insertDevice(d);
      const shadowOf = (deviceid: string, rev: number): Shadow => ({ deviceid, data: { rev }, rev, modified: Date.now(), timestamp: Date.now() });
      const expiring = shadowOf(old.deviceid, 1);
      await shadows.commitShadowWrite({ shadow: expiring, expectedRev: 0, points: [], revisions: [{ shadow: expiring, expiresAt: Date.now() + 20 }] });
      const stored = () => (db.prepare('SELECT rev FROM shadow_revisions WHERE deviceid = ?').all(old.deviceid) as { rev: number }[]).length;
      expect(stored()).to.equal(1);
      await new Promise((resolve) => setTimeout(resolve, 50));

      const next = shadowOf(other.deviceid, 1);
      await shadows.commitShadowWrite({ shadow: next, expectedRev: 0, points: [], revisions: [{ shadow: next }] });

      expect(stored()).to.equal(0);
    } finally {
      shadows.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

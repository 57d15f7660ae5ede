import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteDatabase } from '../../../src/adapters/sqlite/sqlite-database';
import { createSqliteDeviceStore } from '../../../src/adapters/sqlite/sqlite-device-store';
import { createSqliteShadowStore } from '../../../src/adapters/sqlite/sqlite-shadow-store';
import { Shadow } from '../../../src/shadows/shadow';
import { aDeviceRecord, testCredentialKey } from './store-under-test';

const shadowOf = (deviceid: string, rev: number): Shadow => ({ deviceid, data: { rev }, rev, modified: Date.now(), timestamp: Date.now() });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the SQLite shadow history: expired revisions', () => {
  it('are deleted by a later shadow commit, whichever device it writes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'openpie-revisions-'));
    const db = openSqliteDatabase(dir);
    const shadows = createSqliteShadowStore(db);
    try {
      const devices = createSqliteDeviceStore(db, testCredentialKey);
      const [old, other] = [aDeviceRecord(), aDeviceRecord()];
      for (const d of [old, other]) await devices.insertDevice(d);
      const expiring = shadowOf(old.deviceid, 1);
      await shadows.commitShadowWrite({ shadow: expiring, expectedRev: 0, points: [], revisions: [{ shadow: expiring, expiresAt: Date.now() + 20 }] });
      const stored = () => (db.prepare('SELECT rev FROM shadow_revisions WHERE deviceid = ?').all(old.deviceid) as { rev: number }[]).length;
      expect(stored()).to.equal(1);
      await pause(50);

      const next = shadowOf(other.deviceid, 1);
      await shadows.commitShadowWrite({ shadow: next, expectedRev: 0, points: [], revisions: [{ shadow: next }] });

      expect(stored()).to.equal(0);
    } finally {
      shadows.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // A store remembers the earliest expiry it may have left (issue 26 §2): one opened later must read it.
  it('are deleted after a restart, by the first commit once they expired', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'openpie-revisions-'));
    const db = openSqliteDatabase(dir);
    try {
      const devices = createSqliteDeviceStore(db, testCredentialKey);
      const [old, other] = [aDeviceRecord(), aDeviceRecord()];
      for (const d of [old, other]) await devices.insertDevice(d);
      const before = createSqliteShadowStore(db);
      const expiring = shadowOf(old.deviceid, 1);
      await before.commitShadowWrite({ shadow: expiring, expectedRev: 0, points: [], revisions: [{ shadow: expiring, expiresAt: Date.now() + 20 }] });
      before.close();
      const after = createSqliteShadowStore(db);
      try {
        await pause(50);
        const next = shadowOf(other.deviceid, 1);
        await after.commitShadowWrite({ shadow: next, expectedRev: 0, points: [], revisions: [{ shadow: next }] });
        expect(db.prepare('SELECT count(*) FROM shadow_revisions WHERE deviceid = ?').pluck().get(old.deviceid)).to.equal(0);
      } finally {
        after.close();
      }
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('are deleted over several commits when one sweep cannot take them all', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'openpie-revisions-'));
    const db = openSqliteDatabase(dir);
    const shadows = createSqliteShadowStore(db);
    try {
      const devices = createSqliteDeviceStore(db, testCredentialKey);
      const [old, other] = [aDeviceRecord(), aDeviceRecord()];
      for (const d of [old, other]) await devices.insertDevice(d);
      // 300 revisions expiring together: a commit that keeps one revision sweeps at most 256 (SWEEP_MIN).
      const revisions = Array.from({ length: 300 }, (_, i) => ({ shadow: shadowOf(old.deviceid, i + 1), expiresAt: Date.now() + 20 }));
      await shadows.commitShadowWrite({ shadow: revisions[299].shadow, expectedRev: 0, points: [], revisions });
      const stored = () => db.prepare('SELECT count(*) FROM shadow_revisions WHERE deviceid = ?').pluck().get(old.deviceid);
      await pause(50);

      for (let rev = 1; rev <= 2; rev++) {
        const next = shadowOf(other.deviceid, rev);
        await shadows.commitShadowWrite({ shadow: next, expectedRev: rev - 1, points: [], revisions: [{ shadow: next }] });
        expect(stored()).to.equal(rev === 1 ? 44 : 0);
      }
    } finally {
      shadows.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

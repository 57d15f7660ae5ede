import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteDatabase } from '../../../src/adapters/sqlite/sqlite-database';
import { createSqliteDeviceStore } from '../../../src/adapters/sqlite/sqlite-device-store';
import { createSqliteShadowStore, SqliteShadowStore } from '../../../src/adapters/sqlite/sqlite-shadow-store';
import { Shadow } from '../../../src/shadows/shadow';
import { aDeviceRecord, testCredentialKey } from './store-under-test';

const shadowOf = (deviceid: string, rev: number): Shadow => ({ deviceid, data: { rev }, rev, modified: Date.now(), timestamp: Date.now() });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Fixture {
  /** A device whose revisions expire, and another whose writes sweep them. */
  old: string;
  other: string;
  /** Revisions of `old` still stored. */
  stored(): number;
  /** A shadow store on `db`, closed after the test. */
  openStore(): SqliteShadowStore;
}

/** A fresh openpie.db with two devices, removed after `test`. */
async function withTwoDevices(test: (f: Fixture) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'openpie-revisions-'));
  const db = openSqliteDatabase(dir);
  const stores: SqliteShadowStore[] = [];
  try {
    const devices = createSqliteDeviceStore(db, testCredentialKey);
    const [old, other] = [aDeviceRecord(), aDeviceRecord()];
    for (const d of [old, other]) await devices.insertDevice(d);
    const count = db.prepare('SELECT count(*) FROM shadow_revisions WHERE deviceid = ?').pluck();
    await test({
      old: old.deviceid,
      other: other.deviceid,
      stored: () => count.get(old.deviceid) as number,
      openStore: () => stores[stores.push(createSqliteShadowStore(db)) - 1],
    });
  } finally {
    for (const store of stores) store.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A commit of `deviceid`'s shadow at `rev` keeping its revision, which expires after `expiresInMs` when given. */
const commit = (store: SqliteShadowStore, deviceid: string, rev: number, expiresInMs?: number) => {
  const shadow = shadowOf(deviceid, rev);
  const expiresAt = expiresInMs === undefined ? undefined : Date.now() + expiresInMs;
  return store.commitShadowWrite({ shadow, expectedRev: rev - 1, points: [], revisions: [{ shadow, expiresAt }] });
};

describe('the SQLite shadow history: expired revisions', () => {
  it('are deleted by a later shadow commit, whichever device it writes', () =>
    withTwoDevices(async ({ old, other, stored, openStore }) => {
      const shadows = openStore();
      await commit(shadows, old, 1, 20);
      expect(stored()).to.equal(1);
      await pause(50);

      await commit(shadows, other, 1);

      expect(stored()).to.equal(0);
    }));

  // A store remembers the earliest expiry it may have left (issue 26 §2): one opened later must read it.
  it('are deleted after a restart, by the first commit once they expired', () =>
    withTwoDevices(async ({ old, other, stored, openStore }) => {
      const before = openStore();
      await commit(before, old, 1, 20);
      before.close();
      const after = openStore();
      await pause(50);

      await commit(after, other, 1);

      expect(stored()).to.equal(0);
    }));

  it('are deleted over several commits when one sweep cannot take them all', () =>
    withTwoDevices(async ({ old, other, stored, openStore }) => {
      const shadows = openStore();
      // 300 revisions expiring together: a commit that keeps one revision sweeps at most 256 (SWEEP_MIN).
      const revisions = Array.from({ length: 300 }, (_, i) => ({ shadow: shadowOf(old, i + 1), expiresAt: Date.now() + 20 }));
      await shadows.commitShadowWrite({ shadow: revisions[299].shadow, expectedRev: 0, points: [], revisions });
      await pause(50);

      for (let rev = 1; rev <= 2; rev++) {
        await commit(shadows, other, rev);
        expect(stored()).to.equal(rev === 1 ? 44 : 0);
      }
    }));
});

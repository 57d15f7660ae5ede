import Database from 'better-sqlite3';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteDatabase } from '../../../src/adapters/sqlite/sqlite-database';
import { generateKey } from '../../../src/devices/credentials';
import { TestDevice } from '../../helpers/devices';
import { connectDevice } from '../../helpers/mqtt';
import { Stack, startStack } from '../../helpers/stack';

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** A device as a release before issue 20 registered it: its row holds the token and secret themselves. */
function registerAsOlderRelease(dataDir: string): Omit<TestDevice, 'auth'> {
  const db = openSqliteDatabase(dataDir);
  const device = {
    deviceid: randomUUID(), token: generateKey(), secret: generateKey(),
    alias: 'old-timer', groupid: 'g-old', projectid: `p-${randomUUID().slice(0, 8)}`,
  };
  db.prepare(`INSERT INTO devices (deviceid, token, secret, alias, groupid, projectid, enabled, banned, description, livenessttl, created)
    VALUES (?, ?, ?, ?, ?, ?, 1, 0, '', 0, ?)`).run(device.deviceid, device.token, device.secret, device.alias, device.groupid, device.projectid, Date.now());
  db.prepare(`INSERT INTO shadows (deviceid, data, rev, modified, timestamp) VALUES (?, '{}', 0, 0, 0)`).run(device.deviceid);
  db.close();
  return device;
}

/** Every byte of the registry database and its WAL, as a copy of DATA_DIR would hold them. */
const databaseBytes = (dataDir: string) =>
  ['openpie.db', 'openpie.db-wal'].map((f) => { try { return readFileSync(join(dataDir, f)).toString('latin1'); } catch { return ''; } }).join('');

async function deviceCallStatus(stack: Stack, deviceid: string, token: string): Promise<number> {
  return (await stack.http('GET', '/v2/device/status', { headers: { authorization: `Device ${deviceid}:${token}` } })).status;
}

describe('device credentials at rest (issue 20 §1)', () => {
  // SQLite: the migration is this release's first change of a stored format; Cassandra has its own contract tests.
  if (process.env.TEST_STORE === 'cassandra') return;

  it('migrates a database of the previous release: old credentials still work, and no plaintext is left', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'openpie-migrate-'));
    const old = registerAsOlderRelease(dataDir);
    expect(databaseBytes(dataDir)).to.include(old.token);
    const stack = await startStack({ dataDir });
    try {
      expect(await deviceCallStatus(stack, old.deviceid, old.token)).to.equal(200);
      const client = await connectDevice(stack.mqttUrl, { ...old, auth: '' }, { password: old.secret });
      client.end(true);
      const byTokenAlone = await connectDevice(stack.mqttUrl, { ...old, deviceid: '', auth: '' }, { clientId: '' });
      byTokenAlone.end(true);
      const migrations = await stack.admin('GET', '/v2/admin/migrations');
      expect(migrations.body.migrations).to.deep.equal([{ name: 'credential-digests', done: true, plaintextDevices: 0 }]);
      const db = new Database(join(dataDir, 'openpie.db'));
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
      expect(databaseBytes(dataDir)).not.to.include(old.token).and.not.to.include(old.secret);
    } finally {
      await stack.stop();
    }
  });

  it('makes DATA_DIR 0700 and every file in it 0600, the database, its WAL and the keys included', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'openpie-modes-')), 'data');
    const stack = await startStack({ dataDir });
    try {
      await stack.admin('POST', '/v2/admin/devices', { body: { projectid: 'p', groupid: 'g', alias: 'a' } });
      expect(modeOf(dataDir)).to.equal(0o700);
      for (const file of ['openpie.db', 'openpie.db-wal', 'openpie.db-shm', 'credential-key']) {
        expect(modeOf(join(dataDir, file)), file).to.equal(0o600);
      }
    } finally {
      await stack.stop();
    }
  });

  it('is restored from an online backup (VACUUM INTO) with the same credential key', async () => {
    const stack = await startStack();
    const backupDir = mkdtempSync(join(tmpdir(), 'openpie-backup-'));
    const restoredDir = mkdtempSync(join(tmpdir(), 'openpie-restored-'));
    let restored: Stack | undefined;
    try {
      const created = (await stack.admin('POST', '/v2/admin/devices', { body: { projectid: 'p', groupid: 'g', alias: 'backed-up' } })).body;
      // The backup while the service runs: the database as one consistent file, and the key file beside it.
      const db = new Database(join(stack.dataDir, 'openpie.db'), { readonly: true });
      db.exec(`VACUUM INTO '${join(backupDir, 'openpie.db')}'`);
      db.close();
      copyFileSync(join(stack.dataDir, 'credential-key'), join(backupDir, 'credential-key'));
      await stack.stop();

      mkdirSync(restoredDir, { recursive: true });
      for (const file of ['openpie.db', 'credential-key']) copyFileSync(join(backupDir, file), join(restoredDir, file));
      restored = await startStack({ dataDir: restoredDir });

      expect(await deviceCallStatus(restored, created.deviceid, created.token)).to.equal(200);
    } finally {
      await restored?.stop();
      rmSync(backupDir, { recursive: true, force: true });
    }
  });

  it('refuses to start with another credential key than the one the registry was digested with', async () => {
    const stack = await startStack();
    await stack.admin('POST', '/v2/admin/devices', { body: { projectid: 'p', groupid: 'g', alias: 'a' } });
    await stack.stop({ keepData: true });
    rmSync(join(stack.dataDir, 'credential-key'));
    try {
      const err = await startStack({ dataDir: stack.dataDir }).then(() => undefined, (e: Error) => e);
      expect(err?.message).to.match(/credential key .* CREDENTIAL_KEY_FILE holds key/);
    } finally {
      rmSync(stack.dataDir, { recursive: true, force: true });
    }
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createSqliteSessionStore } from '../../src/adapters/sqlite/sqlite-session-store';
import { sessionDatabaseFile } from '../../src/adapters/sqlite/sqlite-session-schema';
import abstractPersistence = require('aedes-persistence/abstract');

// aedes-persistence's own abstract suite (the one its in-memory reference and the upstream adapters run), under
// node:test as it is written for; scripts/test.sh runs it. Each instance gets a fresh database file.
const root = mkdtempSync(join(tmpdir(), 'openpie-sessions-abstract-'));
// A failed assertion skips the suite's own destroy(): every store is closed here before its files go.
const opened: { destroy(): Promise<void> }[] = [];
after(async () => {
  await Promise.all(opened.map((store) => store.destroy()));
  rmSync(root, { recursive: true, force: true });
});

abstractPersistence({
  test,
  testAsync: true,
  persistence: () => {
    const store = createSqliteSessionStore({ file: sessionDatabaseFile(join(root, String(opened.length + 1))), queueLimit: 1000 });
    opened.push(store);
    return store;
  },
});

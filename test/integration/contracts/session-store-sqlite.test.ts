import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sessionDatabaseFile } from '../../../src/adapters/sqlite/sqlite-session-schema';
import { createSqliteSessionStore } from '../../../src/adapters/sqlite/sqlite-session-store';
import { SessionStore } from '../../../src/sessions/port';
import { sessionStoreContract } from './session-store.contract';

describe('session store contract on SQLite', () => {
  sessionStoreContract('SQLite', async (queueLimit) => {
    const dir = mkdtempSync(join(tmpdir(), 'openpie-sessions-'));
    const file = sessionDatabaseFile(dir);
    const opened: SessionStore[] = [createSqliteSessionStore({ file, queueLimit })];
    return {
      store: opened[0],
      async reopen() {
        await opened.at(-1)!.destroy();
        opened.push(createSqliteSessionStore({ file, queueLimit }));
        return opened.at(-1)!;
      },
      async dispose() {
        for (const store of opened) await store.destroy();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
});

import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedisSessionStore } from '../../../src/adapters/redis/redis-session-store';
import { sessionDatabaseFile } from '../../../src/adapters/sqlite/sqlite-session-schema';
import { createSqliteSessionStore } from '../../../src/adapters/sqlite/sqlite-session-store';
import { SessionStore } from '../../../src/sessions/port';
import { dropRedisKeys, sessionStoreUrlOrSkip } from '../../helpers/redis';
import { sessionTimersContract } from './session-timers.contract';

describe('session store timers on SQLite', () => {
  sessionTimersContract('SQLite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'openpie-timers-'));
    const file = sessionDatabaseFile(dir);
    const opened: SessionStore[] = [createSqliteSessionStore({ file, queueLimit: 10 })];
    return {
      store: opened[0],
      async another() {
        opened.push(createSqliteSessionStore({ file, queueLimit: 10 }));
        return opened.at(-1)!;
      },
      async dispose() {
        for (const store of opened) await store.destroy();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
});

describe('session store timers on Redis', function () {
  let url = '';
  before(function () {
    url = sessionStoreUrlOrSkip(this);
  });

  sessionTimersContract('Redis', async () => {
    // Two instances on the same keys are two nodes sharing the store.
    const keyPrefix = `openpie-contract:${randomUUID()}:`;
    const opened: SessionStore[] = [createRedisSessionStore({ url, queueLimit: 10, keyPrefix })];
    return {
      store: opened[0],
      async another() {
        opened.push(createRedisSessionStore({ url, queueLimit: 10, keyPrefix }));
        return opened.at(-1)!;
      },
      async dispose() {
        for (const store of opened) await store.destroy();
        await dropRedisKeys(url, keyPrefix);
      },
    };
  });
});

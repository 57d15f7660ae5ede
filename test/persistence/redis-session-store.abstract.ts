import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { after, test } from 'node:test';
import { createRedisSessionStore } from '../../src/adapters/redis/redis-session-store';
import abstractPersistence = require('aedes-persistence/abstract');

// aedes-persistence's abstract suite against the Redis session store, on the Redis of infra/ (SESSION_STORE_URL from
// `eval "$(infra/env.sh)"`). Each instance writes under a key prefix of its own; the run's keys are deleted after.
const url = process.env.SESSION_STORE_URL;
if (!url) {
  const why = 'SESSION_STORE_URL is not set: run infra/start-all.sh, then eval "$(infra/env.sh)", to test the Redis session store';
  if (process.env.CI) throw new Error(`${why} (CI must run it)`);
  test('aedes-persistence abstract suite on Redis', { skip: why }, () => undefined);
} else {
  const run = `openpie-abstract:${randomUUID()}:`;
  // A failed assertion skips the suite's own destroy(): closed here, or the open connection keeps the run alive.
  const opened: { destroy(): Promise<void> }[] = [];
  after(async () => {
    await Promise.all(opened.map((store) => store.destroy()));
    const redis = new Redis(url);
    for await (const keys of redis.scanStream({ match: `${run}*`, count: 500 })) if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });
  abstractPersistence({
    test,
    testAsync: true,
    persistence: () => {
      const store = createRedisSessionStore({ url, queueLimit: 1000, keyPrefix: `${run}${opened.length + 1}:` });
      opened.push(store);
      return store;
    },
  });
}

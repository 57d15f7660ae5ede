import { Redis } from 'ioredis';
import { createHash, randomUUID } from 'node:crypto';

/**
 * SESSION_STORE_URL of this process (`eval "$(infra/env.sh)"` after `infra/start-all.sh`): the Redis of infra/.
 * Without it the suite is skipped, or fails under CI, which must run it.
 */
export function sessionStoreUrlOrSkip(ctx: Mocha.Context): string {
  const url = process.env.SESSION_STORE_URL;
  if (url) return url;
  const why = 'SESSION_STORE_URL is not set: run infra/start-all.sh, then eval "$(infra/env.sh)", to test the Redis session store';
  if (process.env.CI) throw new Error(`${why} (CI must run the Redis suites)`);
  console.warn(`      skipped: ${why}`);
  ctx.skip();
}

/** A key prefix no other stack or run uses, as if each had a Redis to itself. */
export const randomKeyPrefix = () => `openpie-test:${randomUUID()}:`;

/** The variables of a service whose sessions are in Redis at `url`, under `prefix`. */
export const redisSessionEnv = (url: string, prefix: string): Record<string, string> => ({
  SESSION_STORE: 'redis',
  SESSION_STORE_URL: url,
  SESSION_STORE_PREFIX: prefix,
});

/**
 * TEST_SESSION_STORE=redis: MQTT sessions in the Redis of infra/ (SESSION_STORE_URL), under a key prefix named after
 * `dataDir` (a restart on the same data dir finds the same sessions), or a random one. Otherwise SQLite in DATA_DIR.
 */
export function testSessionStoreEnv(dataDir?: string): Record<string, string> {
  if (process.env.TEST_SESSION_STORE !== 'redis') return {};
  const url = process.env.SESSION_STORE_URL;
  if (!url) throw new Error('TEST_SESSION_STORE=redis needs SESSION_STORE_URL: run infra/start-all.sh, then eval "$(infra/env.sh)"');
  const prefix = dataDir === undefined ? randomKeyPrefix() : `openpie-test:${createHash('sha1').update(dataDir).digest('hex').slice(0, 16)}:`;
  return redisSessionEnv(url, prefix);
}

/** Deletes every key under `prefix` (a test's session store in the shared Redis). */
export async function dropRedisKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  try {
    for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 500 })) if (keys.length > 0) await redis.del(...keys);
  } finally {
    await redis.quit();
  }
}

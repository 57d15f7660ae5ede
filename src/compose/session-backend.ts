import { Config } from '../config/config';
import { createRedisSessionStore } from '../adapters/redis/redis-session-store';
import { sessionDatabaseFile } from '../adapters/sqlite/sqlite-session-schema';
import { createSqliteSessionStore } from '../adapters/sqlite/sqlite-session-store';
import { ReadinessCheck } from '../health/port';
import { SessionStore } from '../sessions/port';

/** The MQTT session store SESSION_STORE names, and whether the nodes of a cluster share it. */
export interface SessionBackend {
  store: SessionStore;
  /** True when every node reads the same store: then only the node that accepts a message queues it. */
  shared: boolean;
  /** The store's own check for /readyz, when it is a server of its own (Redis); SQLite is checked with openpie.db. */
  readiness: ReadinessCheck[];
}

/** SESSION_STORE: SQLite in DATA_DIR (this node's sessions only), or Redis at SESSION_STORE_URL (the cluster's). */
export function openSessionBackend(config: Config): SessionBackend {
  const { store, queueLimit } = config.sessions;
  if (store.kind === 'redis') {
    const redis = createRedisSessionStore({ url: store.url, keyPrefix: store.keyPrefix, queueLimit });
    return { store: redis, shared: true, readiness: [redis.readiness] };
  }
  return { store: createSqliteSessionStore({ file: sessionDatabaseFile(config.dataDir), queueLimit }), shared: false, readiness: [] };
}

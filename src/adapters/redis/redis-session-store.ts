import { Redis } from 'ioredis';
import { Readable } from 'node:stream';
import { AppError } from '../../core/errors';
import { ReadinessCheck } from '../../health/port';
import { decodeValue, encodeValue, plainPacket } from '../../sessions/packet-codec';
import { MatchedSubscription, SessionPacket, SessionStore, SessionSubscription, SubscriptionRecord } from '../../sessions/port';
import { isNoSuchPacket } from '../../sessions/no-such-packet';
import { headRange, headsOf, literalHead, matchSubscriptions, topicTester } from '../../sessions/topic-match';
import { defineQueueScripts, DROPPED, incomingKey, queueKeys, queueSeqKey, redisSessionQueue } from './redis-session-queue';
import { DELETE_WILL, RETAIN_WITHIN, TAKE_COUNT } from './redis-session-scripts';

export interface RedisSessionStoreOptions {
  /** redis:// or rediss:// (SESSION_STORE_URL). */
  url: string;
  /** Messages one session's queue holds; a full queue drops its oldest. 0: no bound. */
  queueLimit: number;
  /** Put before every key, so several services (or test runs) can share one Redis; `openpie:` by default. */
  keyPrefix?: string;
}

export type RedisSessionStore = SessionStore & { readonly broker: { id: string }; readonly readiness: ReadinessCheck };

/** Subscription index entries are named by client and filter, unambiguously (a ClientID may hold any character). */
const indexField = (clientId: string, topic: string) => `${clientId.length}:${clientId}${topic}`;
const subKey = (clientId: string) => `sub:${clientId}`;
const indexKey = (head: string) => `subidx:${head}`;
const isEmpty = (payload: SessionPacket['payload']) => payload === undefined || payload.length === 0;

function recordOf(sub: SessionSubscription): SubscriptionRecord {
  const record: SubscriptionRecord = { qos: sub.qos, rh: sub.rh, rap: sub.rap, nl: sub.nl };
  if (sub.subscriptionIdentifier !== undefined) record.subscriptionIdentifier = sub.subscriptionIdentifier;
  return record;
}

/**
 * The shared session store (SESSION_STORE=redis): every node of a cluster reads and writes the same sessions, queues,
 * retained messages and wills, so a device resumes its session on any node. Nothing is kept in the process: topic
 * matching reads the subscriptions of the topic's heads (sessions/topic-match.ts), packet ids are in Redis (not in a
 * per-process cache as aedes-persistence-redis keeps them), and a will is one per ClientID whichever node stored it.
 *
 * Durability is Redis's: with `appendonly yes` an answered write is in the append-only file (infra/redis.sh). Errors of
 * Redis (unreachable, timed out) become BACKEND_UNAVAILABLE; "no such packet" stays what aedes expects.
 */
export function createRedisSessionStore({ url, queueLimit, keyPrefix = 'openpie:' }: RedisSessionStoreOptions): RedisSessionStore {
  const redis = new Redis(url, {
    keyPrefix,
    lazyConnect: true,
    // A call fails within seconds while Redis is away, instead of waiting for it: the publish it serves is refused (503).
    maxRetriesPerRequest: 1,
    commandTimeout: 5000,
    connectTimeout: 5000,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  redis.on('error', () => undefined);
  const scripts = defineQueueScripts(redis);
  const retainWithin = defineScript(redis, 'openpieRetainWithin', 2, RETAIN_WITHIN);
  const deleteWill = defineScript(redis, 'openpieDeleteWill', 2, DELETE_WILL);
  const takeCount = defineScript(redis, 'openpieTakeCount', 1, TAKE_COUNT);
  const queue = redisSessionQueue(redis, scripts, queueLimit);
  let broker: { id: string } = { id: 'unset' };
  let destroyed = false;

  async function removeSubscriptions(clientId: string, topics: string[]): Promise<void> {
    if (topics.length === 0) return;
    const tx = redis.multi().hdel(subKey(clientId), ...topics);
    for (const topic of topics) tx.hdel(indexKey(literalHead(topic)), indexField(clientId, topic));
    await tx.exec();
    if ((await redis.hlen(subKey(clientId))) === 0) await redis.srem('clients', clientId);
  }

  async function endSession(clientId: string, withWill: boolean): Promise<void> {
    await removeSubscriptions(clientId, await redis.hkeys(subKey(clientId)));
    await scripts.dropQueue(...queueKeys(clientId), queueSeqKey(clientId));
    const tx = redis.multi().srem('clients', clientId).zrem('sessions', clientId).hdel(DROPPED, clientId);
    if (withWill) tx.del(incomingKey(clientId)).hdel('wills', clientId).hdel('willowner', clientId);
    await tx.exec();
  }

  async function* retainedMatching(patterns: string[]): AsyncGenerator<SessionPacket> {
    const matches = topicTester(patterns);
    const seen = new Set<string>();
    for (const pattern of patterns) {
      const { from, to } = headRange(pattern);
      const topics = (await redis.zrangebylex('retidx', `[${from}`, `(${to}`)).filter((t) => !seen.has(t) && matches(t));
      if (topics.length === 0) continue;
      const packets = await redis.hmgetBuffer('ret', ...topics);
      for (const [i, bytes] of packets.entries()) {
        seen.add(topics[i]);
        if (bytes) yield decodeValue<SessionPacket>(bytes);
      }
    }
  }

  const store: RedisSessionStore = {
    ...queue,
    get broker() {
      return broker;
    },
    readiness: {
      name: 'sessions',
      async check() {
        await redis.ping();
      },
    },
    async setup(aedes) {
      broker = aedes;
      if (redis.status === 'wait') await redis.connect();
    },
    async storeRetained(packet) {
      const bytes = isEmpty(packet.payload) ? '' : encodeValue(plainPacket({ ...packet }));
      await retainWithin('ret', 'retidx', packet.topic!, bytes, '', '', Number.MAX_SAFE_INTEGER);
    },
    async storeRetainedWithin(packet, scope, limit) {
      const bytes = isEmpty(packet.payload) ? '' : encodeValue(plainPacket({ ...packet }));
      return Number(await retainWithin('ret', 'retidx', packet.topic!, bytes, scope, `${scope}\u{10FFFF}`, limit)) === 1;
    },
    createRetainedStream: (pattern) => Readable.from(retainedMatching([pattern])),
    createRetainedStreamCombi: (patterns) => Readable.from(retainedMatching(patterns)),
    async addSubscriptions(client, subs) {
      const tx = redis.multi().sadd('clients', client.id);
      for (const sub of subs) {
        tx.hset(subKey(client.id), sub.topic, encodeValue(recordOf(sub)));
        const index = indexKey(literalHead(sub.topic));
        const field = indexField(client.id, sub.topic);
        if (sub.qos > 0) {
          const matched: MatchedSubscription = { clientId: client.id, topic: sub.topic, qos: sub.qos, rh: sub.rh, rap: sub.rap, nl: sub.nl };
          tx.hset(index, field, encodeValue(matched));
        } else {
          tx.hdel(index, field);
        }
      }
      await tx.exec();
    },
    async removeSubscriptions(client, topics) {
      await removeSubscriptions(client.id, topics);
    },
    async subscriptionsByClient(client) {
      const stored = await redis.hgetallBuffer(subKey(client.id));
      return Object.entries(stored).map(([topic, bytes]) => ({ topic, ...decodeValue<SubscriptionRecord>(bytes) }));
    },
    async subscriptionsByTopic(topic) {
      const heads = headsOf(topic);
      const tx = redis.pipeline();
      for (const head of heads) tx.hgetallBuffer(indexKey(head));
      const results = (await tx.exec()) ?? [];
      const candidates = results.flatMap(([err, found]) => {
        if (err) throw err;
        return Object.values(found as Record<string, Buffer>).map((bytes) => decodeValue<MatchedSubscription>(bytes));
      });
      return matchSubscriptions(candidates, topic);
    },
    async cleanSubscriptions(client) {
      await endSession(client.id, false);
    },
    async countOffline() {
      const clients = await redis.smembers('clients');
      let subsCount = 0;
      for (const clientId of clients) {
        const subs = Object.values(await redis.hgetallBuffer(subKey(clientId))).map((b) => decodeValue<SubscriptionRecord>(b));
        subsCount += subs.filter((s) => s.qos > 0).length;
      }
      return { subsCount, clientsCount: clients.length };
    },
    getClientList: (topic) =>
      Readable.from((async function* clientsOf() {
        for (const clientId of (await redis.smembers('clients')).sort()) {
          if (await redis.hexists(subKey(clientId), topic)) yield clientId;
        }
      })()),
    async putWill(client, packet) {
      // Marked with its owner and client, as the reference does (the will sweep reads both).
      packet.brokerId = broker.id;
      packet.clientId = client.id;
      await redis.multi().hset('wills', client.id, encodeValue(plainPacket(packet))).hset('willowner', client.id, broker.id).exec();
    },
    async getWill(client) {
      const bytes = await redis.hgetBuffer('wills', client.id);
      return bytes ? decodeValue<SessionPacket>(bytes) : undefined;
    },
    async delWill(client) {
      const bytes = (await deleteWill('wills', 'willowner', client.id, client.brokerId ?? '')) as Buffer | null;
      return bytes ? decodeValue<SessionPacket>(bytes) : undefined;
    },
    streamWill(brokers = {}) {
      return Readable.from((async function* wills() {
        const owners = await redis.hgetall('willowner');
        const orphans = Object.keys(owners).filter((clientId) => !brokers[owners[clientId]]);
        if (orphans.length === 0) return;
        for (const bytes of await redis.hmgetBuffer('wills', ...orphans)) if (bytes) yield decodeValue<SessionPacket>(bytes);
      })());
    },
    async touchSession(clientId, at) {
      await redis.zadd('sessions', at, clientId);
    },
    async takeDropped(clientId) {
      return Number(await takeCount(DROPPED, clientId));
    },
    async expireSessions(before, online) {
      const idle = (await redis.zrangebyscore('sessions', '-inf', `(${before}`)).filter((clientId) => !online(clientId));
      for (const clientId of idle) await endSession(clientId, true);
      return idle;
    },
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      await redis.quit().catch(() => redis.disconnect());
    },
  };
  return withErrorsTranslated(store);
}

type Script = (...args: (string | Buffer | number)[]) => Promise<unknown>;

function defineScript(redis: Redis, name: string, numberOfKeys: number, lua: string): Script {
  redis.defineCommand(name, { numberOfKeys, lua });
  return (redis as unknown as Record<string, Script>)[`${name}Buffer`].bind(redis);
}

/** Redis's own failures become BACKEND_UNAVAILABLE (503); the rejections aedes relies on ("no such packet") stay. */
function withErrorsTranslated(store: RedisSessionStore): RedisSessionStore {
  const translate = (err: unknown) => {
    if (err instanceof AppError || isNoSuchPacket(err)) return err;
    return new AppError('BACKEND_UNAVAILABLE', `the session store (Redis) is unavailable: ${err instanceof Error ? err.message : String(err)}`);
  };
  for (const name of Object.keys(store) as (keyof RedisSessionStore)[]) {
    const method = store[name];
    if (typeof method !== 'function' || name.startsWith('create') || name.startsWith('outgoingStream') || name === 'streamWill' || name === 'getClientList') continue;
    const wrapped = (...args: unknown[]) => (method as (...a: unknown[]) => Promise<unknown>)(...args).catch((err: unknown) => Promise.reject(translate(err)));
    Object.defineProperty(store, name, { value: name === 'setup' ? async (...args: unknown[]) => wrapped(...args) : wrapped });
  }
  return store;
}

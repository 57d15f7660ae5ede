import { Redis } from 'ioredis';
import { Readable } from 'node:stream';
import { AppError } from '../../core/errors';
import { ReadinessCheck } from '../../health/port';
import { decodeValue, encodeValue, plainPacket } from '../../sessions/packet-codec';
import { MatchedSubscription, SessionPacket, SessionStore, SessionSubscription, SubscriptionRecord } from '../../sessions/port';
import { isNoSuchPacket } from '../../sessions/no-such-packet';
import { headRange, headsOf, literalHead, matchSubscriptions, topicTester } from '../../sessions/topic-match';
import { defineQueueScripts, DROPPED, incomingKey, queueKeys, queueSeqKey, redisSessionQueue } from './redis-session-queue';
import {
  CLAIM_SESSION_END,
  DELAY_WILL,
  DELETE_WILL,
  RELEASE_SESSION,
  RETAIN_WITHIN,
  RETURN_WILL,
  SESSION_DISCONNECTED,
  TAKE_COUNT,
  TAKE_DUE_WILLS,
} from './redis-session-scripts';

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
/** Due wills one script call takes at most (TAKE_DUE_WILLS). */
const DUE_PER_CALL = 500;

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
  const deleteWill = defineScript(redis, 'openpieDeleteWill', 3, DELETE_WILL);
  const takeCount = defineScript(redis, 'openpieTakeCount', 1, TAKE_COUNT);
  const delayWill = defineScript(redis, 'openpieDelayWill', 2, DELAY_WILL);
  const takeDueWills = defineScript(redis, 'openpieTakeDueWills', 3, TAKE_DUE_WILLS);
  const returnWill = defineScript(redis, 'openpieReturnWill', 3, RETURN_WILL);
  const sessionDisconnected = defineScript(redis, 'openpieSessionDisconnected', 3, SESSION_DISCONNECTED);
  const releaseSession = defineScript(redis, 'openpieReleaseSession', 2, RELEASE_SESSION);
  const claimSessionEnd = defineScript(redis, 'openpieClaimSessionEnd', 7, CLAIM_SESSION_END);
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

  /** A session's subscriptions and queue, and when it ends for good its incoming QoS 2 state. */
  async function dropSessionState(clientId: string, withIncoming: boolean): Promise<void> {
    await removeSubscriptions(clientId, await redis.hkeys(subKey(clientId)));
    await scripts.dropQueue(...queueKeys(clientId), queueSeqKey(clientId));
    const tx = redis.multi().srem('clients', clientId).hdel(DROPPED, clientId);
    if (withIncoming) tx.del(incomingKey(clientId));
    await tx.exec();
  }

  /**
   * Ends a session still due by `due` (its score in `checked` at or below `bound`), once however many nodes try at
   * once (CLAIM_SESSION_END): resolves undefined when it is not this caller's to end, else with the will it had.
   */
  async function endClaimed(clientId: string, due: 'expiring' | 'sessions', bound: number): Promise<{ will?: SessionPacket } | undefined> {
    const keys = [due, 'expiring', 'sessions', 'sessheld', 'wills', 'willowner', 'willdue'];
    const will = (await claimSessionEnd(...keys, clientId, bound)) as Buffer | null;
    if (will === null) return undefined;
    await dropSessionState(clientId, true);
    return will.length > 0 ? { will: decodeValue<SessionPacket>(will) } : {};
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
      await dropSessionState(client.id, false);
      await redis.multi().zrem('sessions', client.id).zrem('expiring', client.id).hdel('sessheld', client.id).exec();
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
      await redis.multi().hset('wills', client.id, encodeValue(plainPacket(packet))).hset('willowner', client.id, broker.id).zrem('willdue', client.id).exec();
    },
    async getWill(client) {
      const bytes = await redis.hgetBuffer('wills', client.id);
      return bytes ? decodeValue<SessionPacket>(bytes) : undefined;
    },
    async delWill(client) {
      const bytes = (await deleteWill('wills', 'willowner', 'willdue', client.id, client.brokerId ?? '')) as Buffer | null;
      return bytes ? decodeValue<SessionPacket>(bytes) : undefined;
    },
    streamWill(brokers = {}) {
      return Readable.from((async function* wills() {
        const owners = await redis.hgetall('willowner');
        // A will with a due time waits for its delay (takeDueWills), whoever stored it: no orphan.
        const delayed = new Set(await redis.zrange('willdue', 0, -1));
        const orphans = Object.keys(owners).filter((clientId) => !brokers[owners[clientId]] && !delayed.has(clientId));
        if (orphans.length === 0) return;
        for (const bytes of await redis.hmgetBuffer('wills', ...orphans)) if (bytes) yield decodeValue<SessionPacket>(bytes);
      })());
    },
    async takeDropped(clientId) {
      return Number(await takeCount(DROPPED, clientId));
    },
    async expireSessions(before, online) {
      const idle = (await redis.zrangebyscore('sessions', '-inf', `(${before}`)).filter((clientId) => !online(clientId));
      const ended: string[] = [];
      // Last uses are whole milliseconds: "before `before`" is "at or below before - 1".
      for (const clientId of idle) if (await endClaimed(clientId, 'sessions', before - 1)) ended.push(clientId);
      return ended;
    },
    async sessionConnected(clientId, at, brokerId, expiryMs) {
      const tx = redis.multi().zadd('sessions', at, clientId).zrem('expiring', clientId);
      if (expiryMs === undefined) tx.hdel('sessheld', clientId);
      else tx.hset('sessheld', clientId, `${brokerId}\t${expiryMs}`);
      await tx.exec();
    },
    async sessionDisconnected(clientId, at, brokerId, deadline) {
      await sessionDisconnected('sessions', 'expiring', 'sessheld', clientId, at, brokerId, deadline ?? '');
    },
    async sessionDeadline(clientId) {
      const deadline = await redis.zscore('expiring', clientId);
      return deadline === null ? undefined : Number(deadline);
    },
    async releaseOrphanedSessions(gone, now) {
      const deadlines = new Map<string, number>();
      for (const [clientId, entry] of Object.entries(await redis.hgetall('sessheld'))) {
        const tab = entry.lastIndexOf('\t');
        const deadline = now + Number(entry.slice(tab + 1));
        if (!gone(entry.slice(0, tab))) continue;
        if (Number(await releaseSession('expiring', 'sessheld', clientId, entry, deadline)) === 1) deadlines.set(clientId, deadline);
      }
      return deadlines;
    },
    async endDueSessions(now, online) {
      const due = (await redis.zrangebyscore('expiring', '-inf', now)).filter((clientId) => !online(clientId));
      const ended: { clientId: string; will?: SessionPacket }[] = [];
      for (const clientId of due) {
        const end = await endClaimed(clientId, 'expiring', now);
        if (end) ended.push({ clientId, ...end });
      }
      return ended;
    },
    async delayWill(client, at) {
      return Number(await delayWill('willowner', 'willdue', client.id, client.brokerId ?? broker.id, at)) === 1;
    },
    async takeDueWills(now) {
      const wills: SessionPacket[] = [];
      for (;;) {
        const taken = (await takeDueWills('wills', 'willowner', 'willdue', now, DUE_PER_CALL)) as Buffer[];
        for (const bytes of taken) if (bytes.length > 0) wills.push(decodeValue<SessionPacket>(bytes));
        if (taken.length < DUE_PER_CALL) return wills;
      }
    },
    async returnWill(will, at) {
      await returnWill('wills', 'willowner', 'willdue', will.clientId!, encodeValue(plainPacket(will)), will.brokerId ?? broker.id, at);
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

import type { Redis } from 'ioredis';
import { Readable } from 'node:stream';
import { decodeValue, encodeValue, messageKey, plainPacket, queuedPacket } from '../../sessions/packet-codec';
import { NoSuchPacketError } from '../../sessions/no-such-packet';
import { SessionPacket, SessionQueueMethods } from '../../sessions/port';
import { CLEAR, DISCARD, DROP_QUEUE, ENQUEUE, UPDATE } from './redis-session-scripts';

/** The keys of one client's queue, in the order the scripts take them (redis-session-scripts.ts). */
export const queueKeys = (clientId: string) => [
  `q:${clientId}`,
  `qp:${clientId}`,
  `qmeta:${clientId}`,
  `qk:${clientId}`,
  `qm:${clientId}`,
  `qrel:${clientId}`,
  'queued',
];
export const queueSeqKey = (clientId: string) => `qseq:${clientId}`;
export const DROPPED = 'dropped';
const incomingKey = (clientId: string) => `in:${clientId}`;

type Script = (...args: (string | Buffer | number)[]) => Promise<unknown>;

/** The scripts, on the connection: ioredis sends EVALSHA and falls back to EVAL once after a Redis restart. */
export function defineQueueScripts(redis: Redis) {
  const define = (name: string, numberOfKeys: number, lua: string): Script => {
    redis.defineCommand(name, { numberOfKeys, lua });
    // The …Buffer form answers bulk strings as Buffers: packets are binary.
    const command = (redis as unknown as Record<string, Script>)[`${name}Buffer`];
    return command.bind(redis);
  };
  return {
    enqueue: define('openpieEnqueue', 9, ENQUEUE),
    update: define('openpieUpdate', 7, UPDATE),
    clear: define('openpieClear', 7, CLEAR),
    discard: define('openpieDiscard', 7, DISCARD),
    dropQueue: define('openpieDropQueue', 8, DROP_QUEUE),
  };
}

/**
 * The outgoing queues and incoming QoS 2 packets of the Redis session store, with the matching rules of the SQLite
 * one (sqlite-session-queue.ts). Every change to a queue is one script, atomic in Redis.
 */
export function redisSessionQueue(redis: Redis, scripts: ReturnType<typeof defineQueueScripts>, queueLimit: number): SessionQueueMethods {
  async function enqueue(clientIds: string[], packet: SessionPacket): Promise<number> {
    const queued = queuedPacket(packet);
    const bytes = encodeValue(queued);
    const key = messageKey(queued) ?? '';
    const dropped = await Promise.all(
      [...new Set(clientIds)].map((client) =>
        scripts.enqueue(...queueKeys(client), queueSeqKey(client), DROPPED, bytes, key, queueLimit, client),
      ),
    );
    return dropped.reduce<number>((sum, n) => sum + Number(n), 0);
  }

  async function queueOf(clientId: string): Promise<SessionPacket[]> {
    const [q, qp, qmeta] = queueKeys(clientId);
    const entries = await redis.zrange(q, 0, -1);
    if (entries.length === 0) return [];
    const [packets, metas] = await Promise.all([redis.hmgetBuffer(qp, ...entries), redis.hmget(qmeta, ...entries)]);
    return packets.flatMap((bytes, i) => {
      if (!bytes) return [];
      const packet = decodeValue<SessionPacket>(bytes);
      const id = metas[i]?.split('\t')[1];
      if (id) packet.messageId = Number(id);
      return [packet];
    });
  }

  return {
    outgoingEnqueue: (sub, packet) => enqueue([sub.clientId], packet),
    outgoingEnqueueCombi: (subs, packet) => (subs.length === 0 ? Promise.resolve(0) : enqueue(subs.map((s) => s.clientId), packet)),
    async outgoingDiscard(clientIds, packet) {
      const key = messageKey(packet);
      if (key !== undefined) await Promise.all([...new Set(clientIds)].map((client) => scripts.discard(...queueKeys(client), key)));
    },
    async outgoingUpdate(client, packet) {
      const plain = plainPacket(packet);
      const key = packet.brokerId === undefined ? '' : (messageKey(packet) ?? '');
      const id = packet.messageId === undefined ? '' : String(packet.messageId);
      const done = await scripts.update(...queueKeys(client.id), key, id, encodeValue(plain), plain.cmd ?? 'publish');
      if (Number(done) === 0) throw new NoSuchPacketError();
    },
    async outgoingClearMessageId(client, packet) {
      if (packet?.messageId === undefined) return undefined;
      const bytes = (await scripts.clear(...queueKeys(client.id), String(packet.messageId))) as Buffer | null;
      if (!bytes) return undefined;
      return { ...decodeValue<SessionPacket>(bytes), messageId: packet.messageId };
    },
    // A snapshot, as the reference takes: what is queued while it is sent reaches the client live.
    outgoingStream: (client) => Readable.from((async function* snapshot() {
      yield* await queueOf(client.id);
    })()),
    async incomingStorePacket(client, packet) {
      const stored = { ...queuedPacket(packet), messageId: packet.messageId };
      await redis.hset(incomingKey(client.id), String(packet.messageId), encodeValue(stored));
    },
    async incomingGetPacket(client, packet) {
      const bytes = packet.messageId === undefined ? null : await redis.hgetBuffer(incomingKey(client.id), String(packet.messageId));
      if (!bytes) throw new NoSuchPacketError();
      return decodeValue<SessionPacket>(bytes);
    },
    // Idempotent: two PUBRELs of one packet id (a retransmission racing the first, a take-over) both end in PUBCOMP.
    async incomingDelPacket(client, packet) {
      await redis.hdel(incomingKey(client.id), String(packet.messageId ?? -1));
    },
    async cleanIncoming(client) {
      await redis.del(incomingKey(client.id));
    },
    async hasIncoming(clientId) {
      return (await redis.exists(incomingKey(clientId))) === 1;
    },
    async queuedMessages() {
      return Math.max(0, Number((await redis.get('queued')) ?? 0));
    },
  };
}

export { incomingKey };

import type Database from 'better-sqlite3';
import { Readable } from 'node:stream';
import { decodeValue, encodeValue, plainPacket } from '../../sessions/packet-codec';
import { SessionPacket, SessionStore, SessionSubscription, SubscriptionRecord } from '../../sessions/port';
import { headRange, subscriptionIndex, topicTester } from '../../sessions/topic-match';
import { openSessionDatabase } from './sqlite-session-schema';
import { loadSessionHolders } from './sqlite-session-holders';
import { sqliteSessionQueue } from './sqlite-session-queue';

export interface SqliteSessionStoreOptions {
  /** The database file (sqlite-session-schema.ts `sessionDatabaseFile`); created when missing. */
  file: string;
  /** Messages one session's queue holds; a full queue drops its oldest. 0: no bound. */
  queueLimit: number;
}

interface SubscriptionRow {
  client_id: string;
  topic: string;
  record: Buffer;
}

/** The record aedes-persistence's reference keeps, `{qos, rh, rap, nl}`, and an MQTT 5 identifier when given. */
function recordOf(sub: SessionSubscription): SubscriptionRecord {
  const record: SubscriptionRecord = { qos: sub.qos, rh: sub.rh, rap: sub.rap, nl: sub.nl };
  if (sub.subscriptionIdentifier !== undefined) record.subscriptionIdentifier = sub.subscriptionIdentifier;
  return record;
}

const isEmpty = (payload: SessionPacket['payload']) => payload === undefined || payload.length === 0;

/**
 * The embedded session store (SESSION_STORE=sqlite, the default): aedes' persistence on SQLite in DATA_DIR, WAL
 * with synchronous=FULL like every database of the service, so whatever a method resolved is on disk. better-sqlite3
 * runs each call to completion, so a method is atomic; multi-statement ones are transactions. One process only: nodes
 * of a cluster need a shared store (Redis). Being the only writer, it matches topics against a trie of its QoS 1/2
 * subscriptions kept in memory (loaded at open, changed after each commit) instead of reading them per message, and
 * skips the deletes that aedes asks for at every connection of a client that stores nothing (sqlite-session-holders.ts).
 */
export function createSqliteSessionStore({ file, queueLimit }: SqliteSessionStoreOptions): SessionStore & { readonly broker: { id: string } } {
  const db: Database.Database = openSessionDatabase(file);
  const holders = loadSessionHolders(db);
  const queue = sqliteSessionQueue(db, queueLimit, holders);
  let broker: { id: string } = { id: 'unset' };
  let destroyed = false;

  const upsertSub = db.prepare(
    `INSERT INTO subscriptions (client_id, topic, qos, record) VALUES (@client, @topic, @qos, @record)
     ON CONFLICT (client_id, topic) DO UPDATE SET qos = excluded.qos, record = excluded.record`,
  );
  const deleteSub = db.prepare('DELETE FROM subscriptions WHERE client_id = ? AND topic = ?');
  const subsOf = db.prepare<[string], SubscriptionRow>('SELECT topic, record FROM subscriptions WHERE client_id = ? ORDER BY rowid');
  const topicsOf = db.prepare<[string], string>('SELECT topic FROM subscriptions WHERE client_id = ?').pluck();
  const clientsOf = db.prepare<[string], string>('SELECT client_id FROM subscriptions WHERE topic = ? ORDER BY client_id').pluck();
  const counts = db.prepare(
    'SELECT count(*) FILTER (WHERE qos > 0) AS subsCount, count(DISTINCT client_id) AS clientsCount FROM subscriptions',
  );
  const deleteOf = (table: string) => db.prepare(`DELETE FROM ${table} WHERE client_id = ?`);
  const sessionDeletes = ['subscriptions', 'outgoing', 'sessions'].map(deleteOf);
  const willDeletes = ['incoming', 'wills'].map(deleteOf);
  const endSession = db.transaction((clientId: string, withWill: boolean): string[] => {
    const topics = topicsOf.all(clientId);
    for (const statement of withWill ? [...sessionDeletes, ...willDeletes] : sessionDeletes) statement.run(clientId);
    return topics;
  });
  const putRetained = db.prepare('INSERT OR REPLACE INTO retained (topic, packet) VALUES (?, ?)');
  const delRetained = db.prepare('DELETE FROM retained WHERE topic = ?');
  const hasRetained = db.prepare<[string], number>('SELECT 1 FROM retained WHERE topic = ?').pluck();
  const retainedIn = db.prepare<[string, string], number>('SELECT count(*) FROM retained WHERE topic >= ? AND topic < ?').pluck();
  const retainedRange = db.prepare<[string, string], { topic: string; packet: Buffer }>(
    'SELECT topic, packet FROM retained WHERE topic >= ? AND topic < ? ORDER BY topic',
  );
  const putWill = db.prepare('INSERT OR REPLACE INTO wills (client_id, broker_id, stored_at, packet) VALUES (?, ?, ?, ?)');
  const getWill = db.prepare<[string], { broker_id: string; packet: Buffer }>('SELECT broker_id, packet FROM wills WHERE client_id = ?');
  const delWill = db.prepare('DELETE FROM wills WHERE client_id = ?');
  // A will with a due time waits for its delay (takeDueWills), whoever stored it: no orphan.
  const allWills = db.prepare<[], { broker_id: string; packet: Buffer }>('SELECT broker_id, packet FROM wills WHERE due_at IS NULL ORDER BY stored_at');
  const setWillDue = db.prepare('UPDATE wills SET due_at = ? WHERE client_id = ? AND broker_id = ?');
  const dueWills = db.prepare<[number], { client_id: string; packet: Buffer }>('SELECT client_id, packet FROM wills WHERE due_at <= ? ORDER BY due_at');
  const restoreWill = db.prepare(
    'INSERT INTO wills (client_id, broker_id, stored_at, packet, due_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (client_id) DO NOTHING',
  );
  const dropped = db.prepare<[string], number>('SELECT dropped FROM sessions WHERE client_id = ?').pluck();
  const resetDropped = db.prepare('UPDATE sessions SET dropped = 0 WHERE client_id = ?');
  const idle = db.prepare<[number], string>('SELECT client_id FROM sessions WHERE touched_at < ?').pluck();
  const connected = db.prepare(
    `INSERT INTO sessions (client_id, touched_at, held_by, expiry_ms) VALUES (@client, @at, @broker, @expiry)
     ON CONFLICT (client_id) DO UPDATE SET touched_at = excluded.touched_at, expires_at = NULL, held_by = excluded.held_by,
       expiry_ms = excluded.expiry_ms`,
  );
  // Every SET expression reads the row as it was: a session another broker holds now keeps its holder, and no deadline.
  const disconnected = db.prepare(
    `INSERT INTO sessions (client_id, touched_at, expires_at) VALUES (@client, @at, @deadline)
     ON CONFLICT (client_id) DO UPDATE SET touched_at = excluded.touched_at,
       expires_at = CASE WHEN held_by IS NULL OR held_by = @broker THEN excluded.expires_at ELSE expires_at END,
       held_by = CASE WHEN held_by = @broker THEN NULL ELSE held_by END,
       expiry_ms = CASE WHEN held_by = @broker THEN NULL ELSE expiry_ms END`,
  );
  const held = db.prepare<[], { client_id: string; held_by: string; expiry_ms: number }>(
    'SELECT client_id, held_by, expiry_ms FROM sessions WHERE held_by IS NOT NULL',
  );
  const release = db.prepare('UPDATE sessions SET expires_at = ?, held_by = NULL, expiry_ms = NULL WHERE client_id = ?');
  const due = db.prepare<[number], string>('SELECT client_id FROM sessions WHERE expires_at <= ? ORDER BY expires_at').pluck();
  const deadlineOf = db.prepare<[string], number | null>('SELECT expires_at FROM sessions WHERE client_id = ?').pluck();

  const index = subscriptionIndex();
  const indexRows = db.prepare<[], SubscriptionRow>('SELECT client_id, topic, record FROM subscriptions WHERE qos > 0 ORDER BY rowid');
  for (const row of indexRows.all()) index.set(row.client_id, { topic: row.topic, ...decodeValue<SubscriptionRecord>(row.record) });
  /** Ends a session, then takes its subscriptions out of the index. */
  const end = (clientId: string, withWill: boolean) => {
    if (!holders.sessions.has(clientId) && !(withWill && (holders.incoming.has(clientId) || holders.wills.has(clientId)))) return;
    for (const topic of endSession(clientId, withWill)) index.remove(clientId, topic);
    holders.sessions.delete(clientId);
    if (!withWill) return;
    holders.incoming.delete(clientId);
    holders.wills.delete(clientId);
  };

  const addSubs = db.transaction((clientId: string, subs: SessionSubscription[]) => {
    holders.sessions.add(clientId);
    for (const sub of subs) {
      upsertSub.run({ client: clientId, topic: sub.topic, qos: sub.qos, record: encodeValue(recordOf(sub)) });
    }
  });
  const removeSubs = db.transaction((clientId: string, topics: string[]) => {
    for (const topic of topics) deleteSub.run(clientId, topic);
  });
  const storeWithin = db.transaction((packet: SessionPacket, scope: string, limit: number): boolean => {
    const topic = packet.topic!;
    if (isEmpty(packet.payload)) {
      delRetained.run(topic);
      return true;
    }
    if (!hasRetained.get(topic) && retainedIn.get(scope, `${scope}\u{10FFFF}`)! >= limit) return false;
    putRetained.run(topic, encodeValue(plainPacket({ ...packet })));
    return true;
  });
  const releaseOrphans = db.transaction((gone: (broker: string) => boolean, now: number) => {
    const deadlines = new Map<string, number>();
    for (const row of held.all()) {
      if (!gone(row.held_by)) continue;
      release.run(now + row.expiry_ms, row.client_id);
      deadlines.set(row.client_id, now + row.expiry_ms);
    }
    return deadlines;
  });
  /** Ends the due sessions and takes their wills in one transaction; resolves with them and the filters to unindex. */
  const endDue = db.transaction((now: number, online: (clientId: string) => boolean) => {
    const ended: { clientId: string; will?: SessionPacket; topics: string[] }[] = [];
    for (const clientId of due.all(now)) {
      if (online(clientId)) continue;
      const will = getWill.get(clientId);
      ended.push({ clientId, will: will && decodeValue<SessionPacket>(will.packet), topics: endSession(clientId, true) });
    }
    return ended;
  });
  const takeDue = db.transaction((now: number) =>
    dueWills.all(now).map((row) => {
      delWill.run(row.client_id);
      holders.wills.delete(row.client_id);
      return decodeValue<SessionPacket>(row.packet);
    }),
  );
  const takeDropped = db.transaction((clientId: string) => {
    const count = dropped.get(clientId) ?? 0;
    if (count > 0) resetDropped.run(clientId);
    return count;
  });

  /** Retained messages matching any of `patterns`, each topic once, read in one go (no cursor stays open). */
  function retainedMatching(patterns: string[]): SessionPacket[] {
    const matches = topicTester(patterns);
    const found = new Map<string, SessionPacket>();
    for (const pattern of patterns) {
      const { from, to } = headRange(pattern);
      for (const row of retainedRange.all(from, to)) {
        if (!found.has(row.topic) && matches(row.topic)) found.set(row.topic, decodeValue<SessionPacket>(row.packet));
      }
    }
    return [...found.values()];
  }

  return {
    ...queue,
    get broker() {
      return broker;
    },
    async setup(aedes) {
      broker = aedes;
    },
    async storeRetained(packet) {
      if (isEmpty(packet.payload)) delRetained.run(packet.topic);
      else putRetained.run(packet.topic, encodeValue(plainPacket({ ...packet })));
    },
    async storeRetainedWithin(packet, scope, limit) {
      return storeWithin(packet, scope, limit);
    },
    createRetainedStream: (pattern) => Readable.from(retainedMatching([pattern])),
    createRetainedStreamCombi: (patterns) => Readable.from(retainedMatching(patterns)),
    async addSubscriptions(client, subs) {
      addSubs(client.id, subs);
      for (const sub of subs) index.set(client.id, { ...recordOf(sub), topic: sub.topic });
    },
    async removeSubscriptions(client, topics) {
      removeSubs(client.id, topics);
      for (const topic of topics) index.remove(client.id, topic);
    },
    async subscriptionsByClient(client) {
      if (!holders.sessions.has(client.id)) return [];
      return subsOf.all(client.id).map((row) => ({ topic: row.topic, ...decodeValue<SubscriptionRecord>(row.record) }));
    },
    async subscriptionsByTopic(topic) {
      return index.match(topic);
    },
    hasSubscriptionsNow: (topic) => index.match(topic).length > 0,
    async cleanSubscriptions(client) {
      end(client.id, false);
    },
    async countOffline() {
      return counts.get() as { subsCount: number; clientsCount: number };
    },
    getClientList: (topic) => Readable.from(clientsOf.all(topic)),
    async putWill(client, packet) {
      // Marked with its owner and client, as the reference does (the will sweep reads both).
      packet.brokerId = broker.id;
      packet.clientId = client.id;
      holders.wills.add(client.id);
      putWill.run(client.id, broker.id, Date.now(), encodeValue(plainPacket(packet)));
    },
    async getWill(client) {
      if (!holders.wills.has(client.id)) return undefined;
      const row = getWill.get(client.id);
      return row && decodeValue<SessionPacket>(row.packet);
    },
    async delWill(client) {
      if (!holders.wills.has(client.id)) return undefined;
      const row = getWill.get(client.id);
      if (!row || (client.brokerId !== undefined && row.broker_id !== client.brokerId)) return undefined;
      delWill.run(client.id);
      holders.wills.delete(client.id);
      return decodeValue<SessionPacket>(row.packet);
    },
    streamWill(brokers = {}) {
      const wills = allWills.all().filter((row) => !brokers[row.broker_id]);
      return Readable.from(wills.map((row) => decodeValue<SessionPacket>(row.packet)));
    },
    async takeDropped(clientId) {
      return holders.sessions.has(clientId) ? takeDropped(clientId) : 0;
    },
    async expireSessions(before, online) {
      const ended = idle.all(before).filter((clientId) => !online(clientId));
      for (const clientId of ended) end(clientId, true);
      return ended;
    },
    async sessionConnected(clientId, at, brokerId, expiryMs) {
      const holder = expiryMs === undefined ? null : brokerId;
      holders.sessions.add(clientId);
      connected.run({ client: clientId, at, broker: holder, expiry: expiryMs ?? null });
    },
    async sessionDeadline(clientId) {
      return deadlineOf.get(clientId) ?? undefined;
    },
    async sessionDisconnected(clientId, at, brokerId, deadline) {
      holders.sessions.add(clientId);
      disconnected.run({ client: clientId, at, broker: brokerId, deadline: deadline ?? null });
    },
    async releaseOrphanedSessions(gone, now) {
      return releaseOrphans(gone, now);
    },
    async endDueSessions(now, online) {
      const ended = endDue(now, online);
      for (const { clientId, topics } of ended) {
        for (const topic of topics) index.remove(clientId, topic);
        for (const held of [holders.sessions, holders.incoming, holders.wills]) held.delete(clientId);
      }
      return ended.map(({ clientId, will }) => (will ? { clientId, will } : { clientId }));
    },
    async delayWill(client, at) {
      return setWillDue.run(at, client.id, client.brokerId ?? broker.id).changes > 0;
    },
    async takeDueWills(now) {
      return takeDue(now);
    },
    async returnWill(will, at) {
      holders.wills.add(will.clientId!);
      restoreWill.run(will.clientId, will.brokerId ?? broker.id, Date.now(), encodeValue(plainPacket(will)), at);
    },
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      db.close();
    },
  };
}

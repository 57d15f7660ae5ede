import type { Readable } from 'node:stream';

/**
 * A packet as a session store keeps it: a PUBLISH (queued, retained, a will, an incoming QoS 2 message) or a PUBREL
 * that replaced a queued QoS 2 PUBLISH. Stored with every own field it has (MQTT 5 `properties` included) and read back
 * equal, Buffers as Buffers; function-valued fields (aedes' write callbacks) are never stored.
 */
export interface SessionPacket {
  cmd?: string;
  topic?: string;
  payload?: Buffer | string;
  qos?: 0 | 1 | 2;
  retain?: boolean;
  dup?: boolean;
  messageId?: number;
  /** The aedes instance that made the packet, and its counter: together they name one message. */
  brokerId?: string;
  brokerCounter?: number;
  clientId?: string;
  [field: string]: unknown;
}

/** What is kept of a subscription besides its filter: aedes-persistence's record, with an MQTT 5 identifier. */
export interface SubscriptionRecord {
  qos: 0 | 1 | 2;
  rh?: number;
  rap?: boolean;
  nl?: boolean;
  subscriptionIdentifier?: number;
}

/** A stored subscription of a persistent session: the filter and its options. */
export interface SessionSubscription extends SubscriptionRecord {
  topic: string;
}

/** A subscription as a matching topic finds it: which client, which filter. */
export interface MatchedSubscription extends SessionSubscription {
  clientId: string;
}

/** The client as the store needs it: its ClientID (aedes passes its Client, or `{ id, brokerId }` for wills). */
export interface SessionClient {
  id: string;
  brokerId?: string;
}

/**
 * Where MQTT session state lives so that it outlives a process and is seen by every node: aedes' persistence
 * interface (aedes-persistence 11, promise-based; each adapter passes its abstract suite, test/persistence) plus
 * what the service needs on top: bounded queues, a retained limit per scope, session expiry, and the figures of
 * /metrics. Adapters: SQLite in DATA_DIR (adapters/sqlite/sqlite-session-store.ts) and Redis
 * (adapters/redis/redis-session-store.ts).
 */
export interface SessionStore {
  /** aedes calls it once; it must be an `async function` (aedes checks the constructor's name). */
  setup(broker: { id: string }): Promise<void>;

  // Retained messages [MQTT-3.3.1-5]: one per topic, an empty payload deletes it [MQTT-3.3.1-10].
  storeRetained(packet: SessionPacket): Promise<void>;
  createRetainedStream(pattern: string): Readable;
  createRetainedStreamCombi(patterns: string[]): Readable;

  // Subscriptions of persistent sessions [MQTT-3.1.2-4].
  addSubscriptions(client: SessionClient, subs: SessionSubscription[]): Promise<void>;
  removeSubscriptions(client: SessionClient, topics: string[]): Promise<void>;
  subscriptionsByClient(client: SessionClient): Promise<SessionSubscription[]>;
  /** QoS 1 and 2 subscriptions whose filter matches `topic`, of every client. */
  subscriptionsByTopic(topic: string): Promise<MatchedSubscription[]>;
  /**
   * Whether any QoS 1 or 2 subscription matches `topic`, answered at once by a store that matches in memory (SQLite);
   * absent where the answer takes a round trip (Redis).
   */
  hasSubscriptionsNow?(topic: string): boolean;
  /** Ends a session: its subscriptions and its queue. */
  cleanSubscriptions(client: SessionClient): Promise<void>;
  countOffline(): Promise<{ subsCount: number; clientsCount: number }>;
  /** Clients subscribed to exactly `topic`, in client-id order on every store (a Redis set has no order of its own). */
  getClientList(topic: string): Readable;

  // The outgoing queue of each session, in order: messages to send, in-flight ones, PUBRELs [MQTT-4.4.0-1].
  outgoingEnqueue(sub: { clientId: string }, packet: SessionPacket): Promise<number>;
  /** Queues `packet` for each subscription's client; resolves with how many older messages a full queue dropped. */
  outgoingEnqueueCombi(subs: { clientId: string }[], packet: SessionPacket): Promise<number>;
  /** Takes back a message queued for these clients and not sent to any of them yet (its publish was refused). */
  outgoingDiscard(clientIds: string[], packet: SessionPacket): Promise<void>;
  outgoingUpdate(client: SessionClient, packet: SessionPacket): Promise<void>;
  outgoingClearMessageId(client: SessionClient, packet: SessionPacket): Promise<SessionPacket | undefined>;
  outgoingStream(client: SessionClient): Readable;

  // Incoming QoS 2 messages between PUBREC and PUBREL [MQTT-4.3.3-2].
  incomingStorePacket(client: SessionClient, packet: SessionPacket): Promise<void>;
  incomingGetPacket(client: SessionClient, packet: { messageId?: number }): Promise<SessionPacket>;
  incomingDelPacket(client: SessionClient, packet: { messageId?: number }): Promise<void>;
  cleanIncoming(client: SessionClient): Promise<void>;
  /** True while the client's session holds an incoming QoS 2 message whose PUBREL has not come (session state too). */
  hasIncoming(clientId: string): Promise<boolean>;

  // Wills: one per ClientID, owned by the broker (process) that stored it.
  putWill(client: SessionClient, packet: SessionPacket): Promise<void>;
  getWill(client: SessionClient): Promise<SessionPacket | undefined>;
  /** Deletes the client's will; with `client.brokerId`, only when that broker owns it. Resolves with what it deleted. */
  delWill(client: SessionClient): Promise<SessionPacket | undefined>;
  /** Wills whose owner is not among `brokers`. */
  streamWill(brokers?: Record<string, unknown>): Readable;

  destroy(): Promise<void>;

  // Beyond aedes' interface.
  /**
   * Stores a retained message unless `scope` (a topic prefix) already holds `limit` retained topics other than this
   * one; replacing or deleting is always allowed. Resolves false when refused.
   */
  storeRetainedWithin(packet: SessionPacket, scope: string, limit: number): Promise<boolean>;
  /**
   * Messages a full queue dropped for `clientId` since the last call (the count is reset), for the notice the device
   * gets when it returns.
   */
  takeDropped(clientId: string): Promise<number>;
  /**
   * Ends every session last touched before `before` (ms) whose client `online` does not claim: subscriptions, queue,
   * incoming QoS 2 state and will. Resolves with the ClientIDs ended.
   */
  expireSessions(before: number, online: (clientId: string) => boolean): Promise<string[]>;
  /** Messages waiting in every session's queue (PUBLISH entries, sent or not; not PUBRELs). */
  queuedMessages(): Promise<number>;

  // MQTT 5 timers, kept here so that any node fires them, also once the node that set them is gone
  // (mqtt/session-timers.ts): a session's end (Session Expiry Interval) and a will's delay (Will Delay Interval).
  /**
   * A persistent session's client connected at `at` (ms) to `broker` (an aedes id): its last use (for SESSION_EXPIRY_SECONDS),
   * and no deadline while connected. `expiryMs`: its MQTT 5 Session Expiry Interval, which counts from the moment a
   * crash of `broker` is found (releaseOrphanedSessions); undefined when the session never ends by one (MQTT 3.1.1).
   */
  sessionConnected(clientId: string, at: number, broker: string, expiryMs?: number): Promise<void>;
  /**
   * The connection `broker` held ended at `at`: the session's last use and its `deadline` (MQTT 5; none when
   * undefined), after which endDueSessions ends it. Only the last use when another broker holds the session now (the
   * device connected again elsewhere).
   */
  sessionDisconnected(clientId: string, at: number, broker: string, deadline?: number): Promise<void>;
  /**
   * Sessions still held by a broker that `gone` says is gone (a crash cut its connections): each ends its Session
   * Expiry Interval after `now`. Resolves with the deadlines given, by ClientID.
   */
  releaseOrphanedSessions(gone: (broker: string) => boolean, now: number): Promise<Map<string, number>>;
  /** The deadline of a disconnected session (ms), whoever gave it; undefined when it has none, or there is no session. */
  sessionDeadline(clientId: string): Promise<number | undefined>;
  /**
   * Ends, as expireSessions does, every session whose deadline is at or before `now` and whose client `online` does
   * not claim, each by one caller only however many ask at once; the will it still had is taken, not dropped, so the
   * caller publishes it [MQTT-3.1.3-9]. Resolves with the sessions ended.
   */
  endDueSessions(now: number, online: (clientId: string) => boolean): Promise<{ clientId: string; will?: SessionPacket }[]>;
  /**
   * The client's will is due at `at` (ms), if `client.brokerId` still owns it; resolves false when it does not. A will
   * with a due time is no orphan: streamWill leaves it out, takeDueWills hands it over. Storing or deleting the will
   * (a new connection) cancels it [MQTT-3.1.3-9].
   */
  delayWill(client: SessionClient, at: number): Promise<boolean>;
  /** Deletes and resolves with every will due at or before `now`, each for one caller only however many ask at once. */
  takeDueWills(now: number): Promise<SessionPacket[]>;
  /** Stores again a will that takeDueWills gave (it could not be published yet), due at `at`, unless its client stored another since. */
  returnWill(will: SessionPacket, at: number): Promise<void>;
}

/** The queue half of a session store (outgoing queues, incoming QoS 2 packets), which each adapter keeps in a module of its own. */
export type SessionQueueMethods = Pick<
  SessionStore,
  | 'outgoingEnqueue'
  | 'outgoingEnqueueCombi'
  | 'outgoingDiscard'
  | 'outgoingUpdate'
  | 'outgoingClearMessageId'
  | 'outgoingStream'
  | 'incomingStorePacket'
  | 'incomingGetPacket'
  | 'incomingDelPacket'
  | 'cleanIncoming'
  | 'hasIncoming'
  | 'queuedMessages'
>;

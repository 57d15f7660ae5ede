/**
 * What the nodes of one cluster tell each other about shared state (issue 14): an admin change made through one node
 * must be obeyed by every node, so each node drops what it cached of the changed item when told.
 */
export const CHANGE_KINDS = ['schema', 'triggers', 'hook', 'quota-limits', 'signing-key', 'device', 'user-token', 'datatags', 'retention', 'desired', 'rollups'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** One changed item: `key` names it as the cache that holds it does (a schema owner, a device id, a project id …). */
export interface ChangeNotice {
  kind: ChangeKind;
  key: string;
}

/**
 * Change notices between nodes (the MQTT backbone, src/adapters/backbone). Notices can be lost (a node cut off for
 * longer than its backbone session lasts), so caches also expire on their own (src/cluster/read-cache.ts).
 */
export interface ChangeFeed {
  /** Tells the other nodes; never throws, never waits. */
  announce(notice: ChangeNotice): void;
  /** `listener` gets every notice of another node, and `'all'` when notices may have been missed. */
  listen(listener: (notice: ChangeNotice | 'all') => void): void;
}

/** A node that announces to nobody: one node alone, or nodes without a backbone (caches then expire by age only). */
export const silentChangeFeed = (): ChangeFeed => ({ announce: () => undefined, listen: () => undefined });

/** A running node as the cluster's registry of nodes holds it. */
export interface NodeRecord {
  nodeId: string;
  /** New at every start: tells this run of the node from an earlier or a rival one with the same NODE_ID. */
  incarnation: string;
  host: string;
  pid: number;
  /** Epoch ms. */
  started: number;
  heartbeat: number;
}

/** Where nodes register (STORE=cassandra): a NODE_ID is held by one running node at a time. */
export interface NodeRegistry {
  /** Holds `record.nodeId` for `ttlSeconds`; answers the holder instead when another incarnation holds it. */
  claim(record: NodeRecord, ttlSeconds: number): Promise<{ held: true } | { held: false; holder: NodeRecord }>;
  /**
   * Holds it `ttlSeconds` longer, with `record.heartbeat` as the new time, or again when it lapsed meanwhile; answers
   * the holder instead when another incarnation took it (this one was silent past its TTL).
   */
  renew(record: NodeRecord, ttlSeconds: number): Promise<{ held: true } | { held: false; holder: NodeRecord }>;
  /** Gives it up, unless another incarnation holds it. */
  release(record: NodeRecord): Promise<void>;
}

import { OperatorRecord } from './codecs';

/** Operator accounts, shared by every node of a cluster (the SQLite database, or Cassandra). */
export interface OperatorStore {
  /** False when the name is taken. */
  insert(operator: OperatorRecord): Promise<boolean>;
  get(name: string): Promise<OperatorRecord | undefined>;
  /** Sorted by name. */
  list(): Promise<OperatorRecord[]>;
  /** False when there is no such operator. */
  setKeyDigest(name: string, keyDigest: string): Promise<boolean>;
  /** False when there was no such operator. */
  remove(name: string): Promise<boolean>;
}

/** One admin change: who, when, what, from where, and how it ended. Never a body: bodies carry credentials. */
export interface AuditEntry {
  /** ms since the epoch. */
  readonly at: number;
  /** The operator's name, or `bootstrap` for ADMIN_TOKEN. */
  readonly actor: string;
  readonly role: string;
  readonly method: string;
  /** The route's pattern, `/v2/admin/devices/:deviceid/token`. */
  readonly route: string;
  /** The path called, without its query. */
  readonly path: string;
  /** Ids the change was about: path parameters, and the ids of what it created (a new device's `deviceid`). */
  readonly targets: Readonly<Record<string, string>>;
  /** The caller's address (ctx.ip). */
  readonly source: string;
  /** The HTTP status answered. */
  readonly status: number;
}

/** The audit log, kept AUDIT_RETENTION_DAYS (the adapters forget older entries). */
export interface AuditLog {
  append(entry: AuditEntry): Promise<void>;
  /** Newest first: at most `limit` entries at or after `since`, of `actor` alone when given. */
  read(query: { since: number; limit: number; actor?: string }): Promise<AuditEntry[]>;
}

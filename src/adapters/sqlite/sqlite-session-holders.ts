import type Database from 'better-sqlite3';

/**
 * Which ClientIDs may have rows in sessions.db, kept in memory so that the calls aedes makes at every CONNECT and
 * close of a connection that stores nothing (an MQTT 3.1.1 clean session without a will: end the old session, delete
 * the will, clear the inbound QoS 2 state) cost no write transaction when there is nothing to delete (issue 26 §4).
 * Sound because this process is the only writer of sessions.db (sqlite-session-store.ts), the bound the trie of
 * subscriptions already relies on.
 *
 * Each set may hold more than the database (an id is added before its first write and left when a delete may have
 * left rows), never less: an id missing from a set has no row in those tables. It holds the ids of persistent
 * sessions, of stored wills and of unfinished inbound QoS 2 exchanges, as the tables do (about 100 bytes an id).
 */
export interface SessionHolders {
  /** Rows in `subscriptions`, `outgoing` or `sessions` (and so `queue_sizes`). */
  readonly sessions: Set<string>;
  /** Rows in `incoming`: inbound QoS 2 packets not yet released. */
  readonly incoming: Set<string>;
  /** A row in `wills`. */
  readonly wills: Set<string>;
}

export function loadSessionHolders(db: Database.Database): SessionHolders {
  const ids = (sql: string) => new Set(db.prepare<[], string>(sql).pluck().all());
  return {
    sessions: ids('SELECT client_id FROM subscriptions UNION SELECT client_id FROM outgoing UNION SELECT client_id FROM sessions'),
    incoming: ids('SELECT DISTINCT client_id FROM incoming'),
    wills: ids('SELECT client_id FROM wills'),
  };
}

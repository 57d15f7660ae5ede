import { Client, policies, types } from 'cassandra-driver';
import { createCassandraSchema, CassandraReplication, CassandraTables, tablesIn } from './cassandra-schema';

export interface CassandraOptions {
  /** `host:port` of one or more nodes; the driver finds the others. */
  contactPoints: readonly string[];
  /** The data centre whose nodes serve the requests (LOCAL_QUORUM, LOCAL_SERIAL are counted there). */
  localDataCenter: string;
  keyspace: string;
  /** Replication of the keyspace when this creates it; an existing keyspace keeps its own. */
  replication: CassandraReplication;
  credentials?: { username: string; password: string };
}

export interface CassandraConnection {
  readonly client: Client;
  readonly keyspace: string;
  readonly tables: CassandraTables;
  /** Idempotent. */
  close(): Promise<void>;
}

/**
 * Every statement is prepared once and runs at LOCAL_QUORUM; the Paxos phase of lightweight transactions (`IF ...`)
 * at SERIAL, so a compare-and-set is linearizable across data centres. Nothing is marked idempotent: the driver
 * must not retry a conditional write on another node by itself (the adapters resolve unknown outcomes).
 */
const QUERY_OPTIONS = {
  prepare: true,
  consistency: types.consistencies.localQuorum,
  serialConsistency: types.consistencies.serial,
  isIdempotent: false,
};

/** A node that went away is tried again after 0.5 s, then less often, at least every 10 s. */
const RECONNECT_BASE_MS = 500;
const RECONNECT_MAX_MS = 10_000;

/** Connects, creates the keyspace and tables when missing, and returns the client the adapters share. */
export async function connectCassandra(options: CassandraOptions): Promise<CassandraConnection> {
  const client = new Client({
    contactPoints: [...options.contactPoints],
    localDataCenter: options.localDataCenter,
    credentials: options.credentials,
    queryOptions: QUERY_OPTIONS,
    policies: { reconnection: new policies.reconnection.ExponentialReconnectionPolicy(RECONNECT_BASE_MS, RECONNECT_MAX_MS, true) },
    // Above the server's own write/CAS timeouts (infra/cassandra/cassandra.yaml: 5 s each), so a slow lightweight
    // transaction ends with the server's WriteTimeout, which says it was a CAS, rather than a client-side guess.
    socketOptions: { connectTimeout: 5000, readTimeout: 15_000 },
  });
  try {
    await client.connect();
    await createCassandraSchema(client, options.keyspace, options.replication);
  } catch (err) {
    await client.shutdown().catch(() => undefined);
    const where = `${options.contactPoints.join(',')} (data centre ${options.localDataCenter})`;
    throw new Error(`Cassandra at ${where}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  let closing: Promise<void> | undefined;
  return {
    client,
    keyspace: options.keyspace,
    tables: tablesIn(options.keyspace),
    close: () => (closing ??= client.shutdown()),
  };
}

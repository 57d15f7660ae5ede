import { types } from 'cassandra-driver';
import * as t from 'io-ts';
import { NodeRecord, NodeRegistry } from '../../cluster/port';
import { BigintNumber, decodeRow, UuidCodec } from './cassandra-codecs';
import { CassandraConnection } from './cassandra-client';
import { translateCassandraError } from './cassandra-errors';

const HolderRow = t.type({
  node_id: t.string,
  incarnation: UuidCodec,
  host: t.string,
  pid: t.number,
  started: BigintNumber,
  heartbeat: BigintNumber,
});

const holderOf = (row: unknown): NodeRecord => {
  const r = decodeRow(HolderRow, row);
  return { nodeId: r.node_id, incarnation: r.incarnation.toString(), host: r.host, pid: r.pid, started: r.started, heartbeat: r.heartbeat };
};

/**
 * Running nodes in `nodes`: a row per NODE_ID that lives `ttlSeconds` past its last heartbeat (a TTL on every cell).
 * Claims and renewals are lightweight transactions: INSERT ... IF NOT EXISTS takes a free id, UPDATE ... IF
 * incarnation = ? extends only this run's hold. An expired row reads as absent, so a crashed node's id is free again
 * one TTL after its last heartbeat.
 */
export function createCassandraNodeRegistry({ client, tables }: CassandraConnection): NodeRegistry {
  const cql = {
    insert: `INSERT INTO ${tables.nodes} (node_id, incarnation, host, pid, started, heartbeat) VALUES (?, ?, ?, ?, ?, ?)
             IF NOT EXISTS USING TTL ?`,
    renew: `UPDATE ${tables.nodes} USING TTL ? SET incarnation = ?, host = ?, pid = ?, started = ?, heartbeat = ?
            WHERE node_id = ? IF incarnation = ?`,
    release: `DELETE FROM ${tables.nodes} WHERE node_id = ? IF incarnation = ?`,
  };
  const long = types.Long.fromNumber;
  const uuid = (s: string) => types.Uuid.fromString(s);

  async function claim(record: NodeRecord, ttlSeconds: number) {
    const params = [record.nodeId, uuid(record.incarnation), record.host, record.pid, long(record.started), long(record.heartbeat), ttlSeconds];
    const row = (await client.execute(cql.insert, params)).first();
    if (row.get('[applied]') === true) return { held: true as const };
    const holder = holderOf(row);
    return holder.incarnation === record.incarnation ? { held: true as const } : { held: false as const, holder };
  }

  return {
    async claim(record, ttlSeconds) {
      try {
        return await claim(record, ttlSeconds);
      } catch (err) {
        throw translateCassandraError(err, 'register the node');
      }
    },
    async renew(record, ttlSeconds) {
      try {
        const params = [ttlSeconds, uuid(record.incarnation), record.host, record.pid, long(record.started), long(record.heartbeat),
          record.nodeId, uuid(record.incarnation)];
        const row = (await client.execute(cql.renew, params)).first();
        if (row.get('[applied]') === true) return { held: true as const };
        // Lapsed (no row): nobody took it meanwhile, so hold it again. Otherwise claim answers who holds it.
        return await claim(record, ttlSeconds);
      } catch (err) {
        throw translateCassandraError(err, 'renew the node registration');
      }
    },
    async release(record) {
      try {
        await client.execute(cql.release, [record.nodeId, uuid(record.incarnation)]);
      } catch (err) {
        throw translateCassandraError(err, 'release the node registration');
      }
    },
  };
}

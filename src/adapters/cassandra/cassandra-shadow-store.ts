import { createHash } from 'node:crypto';
import { types } from 'cassandra-driver';
import * as t from 'io-ts';
import { AppError } from '../../core/errors';
import { isJsonObject } from '../../core/json';
import { ShadowCommit, ShadowStore } from '../../shadows/port';
import { PointOutbox } from '../../timeseries/port';
import { Shadow } from '../../shadows/shadow';
import { BigintNumber, decodeRow, nullable, compareTimeUuids, TimeUuidCodec, timeUuidAfter } from './cassandra-codecs';
import { CassandraConnection } from './cassandra-client';
import { isUnknownWriteOutcome, translateCassandraError } from './cassandra-errors';
import { createCassandraPointOutbox, OUTBOX_MARKER_GRACE_MS } from './cassandra-point-outbox';
import { PENDING_SHARDS } from './cassandra-schema';
import { revisionWriter } from './cassandra-shadow-history';

const ShadowRow = t.type({ rev: BigintNumber, data: t.string, modified: BigintNumber, data_time: BigintNumber });
/** What a conditional write that was not applied answers: the columns of its condition as they are. */
const Refusal = t.type({ rev: nullable(BigintNumber), tail: nullable(TimeUuidCodec) });
const TailRow = t.type({ tail: nullable(TimeUuidCodec) });

/** Commits lost only to another node's commit id being ahead of our clock (see `tail`) are retried this often. */
const MAX_TAIL_RETRIES = 5;

/** The partition of `pending_outboxes` that marks a device. */
export const shardOf = (deviceid: string) => createHash('sha1').update(deviceid).digest().readUInt16BE(0) % PENDING_SHARDS;

/**
 * Shadows and their point outbox in one partition per device (table `shadows`, see cassandra-schema.ts), so that a
 * write's compare-and-set on `rev` and the row queuing its points are one conditional BATCH: one lightweight
 * transaction, applied whole or not at all. Every commit also sets `tail` to its own id and requires `tail` below
 * it, which orders the outbox rows as the commits and lets the outcome of a timed-out commit be read back.
 */
/** `onRevisionLost`: told of each committed write whose revisions could not be kept (keepRevisions). */
export function createCassandraShadowStore(
  conn: CassandraConnection,
  onRevisionLost: (deviceid: string, err: unknown) => void = () => undefined,
): ShadowStore & PointOutbox {
  const { client, tables } = conn;
  const writeRevisions = revisionWriter(conn);
  const cql = {
    select: `SELECT rev, data, modified, data_time FROM ${tables.shadows} WHERE deviceid = ? LIMIT 1`,
    write: `UPDATE ${tables.shadows} SET rev = ?, data = ?, modified = ?, data_time = ?, tail = ?
            WHERE deviceid = ? IF rev = ? AND tail < ?`,
    // Points of a write that left the shadow as it was (an older write): queued as long as the partition exists.
    touch: `UPDATE ${tables.shadows} SET tail = ? WHERE deviceid = ? IF tail < ?`,
    enqueue: `INSERT INTO ${tables.shadows} (deviceid, seq, points) VALUES (?, ?, ?)`,
    tail: `SELECT tail FROM ${tables.shadows} WHERE deviceid = ? LIMIT 1`,
    mark: `INSERT INTO ${tables.pending} (shard, deviceid, marked) VALUES (?, ?, true)`,
  };

  /**
   * When this node last marked each device as having queued points. A marker is only removed once it is older than
   * OUTBOX_MARKER_GRACE_MS and its partition was found empty, so a commit within half that time of a marking needs
   * none of its own (the commit itself takes seconds at most).
   */
  const markedAt = new Map<string, number>();
  async function markPending(deviceid: string): Promise<void> {
    const now = Date.now();
    if (now - (markedAt.get(deviceid) ?? -Infinity) < OUTBOX_MARKER_GRACE_MS / 2) return;
    await client.execute(cql.mark, [shardOf(deviceid), deviceid]);
    if (markedAt.size > 100_000) markedAt.clear();
    markedAt.set(deviceid, now);
  }

  /** After a timeout the write may or may not have been applied; a SERIAL read settles it (and any Paxos round left open). */
  async function settle(deviceid: string, seq: types.TimeUuid): Promise<boolean> {
    const row = (await client.execute(cql.tail, [deviceid], { consistency: types.consistencies.serial })).first();
    const tail = row === null ? undefined : decodeRow(TailRow, row).tail;
    if (tail?.equals(seq)) return true;
    // Below ours: ours can no longer apply (the read closed its round). Above: another commit followed, and
    // whether ours came before it cannot be told.
    if (tail === null || tail === undefined || compareTimeUuids(tail, seq) < 0) return false;
    throw new AppError('BACKEND_UNAVAILABLE', 'the device store (Cassandra) timed out; the write may or may not be applied');
  }

  async function commit(deviceid: string, { shadow, expectedRev, points }: ShadowCommit): Promise<boolean> {
    if (points.length > 0) await markPending(deviceid);
    let seq = types.TimeUuid.now();
    for (let attempt = 0; attempt < MAX_TAIL_RETRIES; attempt++) {
      const long = types.Long.fromNumber;
      const condition = shadow
        ? {
            query: cql.write,
            params: [long(shadow.rev), JSON.stringify(shadow.data), long(shadow.modified), long(shadow.timestamp), seq,
              deviceid, long(expectedRev), seq],
          }
        : { query: cql.touch, params: [seq, deviceid, seq] };
      const enqueue = { query: cql.enqueue, params: [deviceid, seq, JSON.stringify(points)] };
      const queries = points.length > 0 ? [condition, enqueue] : [condition];
      let result: types.ResultSet;
      try {
        result = queries.length === 1 ? await client.execute(condition.query, condition.params) : await client.batch(queries);
      } catch (err) {
        if (isUnknownWriteOutcome(err)) return settle(deviceid, seq);
        throw err;
      }
      const row = result.first();
      if (row.get('[applied]') === true) return true;
      const refusal = decodeRow(Refusal, row);
      if (refusal.tail == null || (shadow && refusal.rev == null)) {
        throw new AppError('DEVICE_NOT_FOUND', `device ${deviceid} no longer exists`);
      }
      if (shadow && refusal.rev !== expectedRev) return false;
      seq = timeUuidAfter(refusal.tail);
    }
    return false;
  }

  /**
   * After the commit, tried twice. Should both fail (or the node stop in between), the write stands without its
   * revision: it is missing from the list, `?at=` still finds it while it is the current shadow, and no other revision
   * depends on it (docs/device-api.md "Shadow history"); `onRevisionLost` hears of it.
   */
  async function keepRevisions(deviceid: string, revisions: NonNullable<ShadowCommit['revisions']>): Promise<void> {
    await writeRevisions(deviceid, revisions, Date.now())
      .catch(() => writeRevisions(deviceid, revisions, Date.now()))
      .catch((err: unknown) => onRevisionLost(deviceid, err));
  }

  return {
    async readShadow(deviceid) {
      try {
        const row = (await client.execute(cql.select, [deviceid])).first();
        // rev 0: created with the device, never written; null: the device was deleted.
        if (row === null || row.get('rev') === null || row.get('data') === null) return undefined;
        const r = decodeRow(ShadowRow, row);
        const data: unknown = JSON.parse(r.data);
        if (!isJsonObject(data)) throw new AppError('INTERNAL', `shadow ${deviceid}: stored data is not an object`);
        const shadow: Shadow = { deviceid, data, rev: r.rev, modified: r.modified, timestamp: r.data_time };
        return shadow;
      } catch (err) {
        throw translateCassandraError(err, 'read shadow');
      }
    },

    /**
     * The device is the shadow's, or for a write that stores points only, the points' metric: the device's ClientID
     * by the design's write rule (src/timeseries/point.ts).
     */
    async commitShadowWrite(c) {
      // The quota ledger is in other partitions, out of this lightweight transaction's reach (ShadowCommit.charge).
      if (c.charge) throw new AppError('INTERNAL', 'a quota charge cannot be committed with a shadow in Cassandra');
      const deviceid = c.shadow?.deviceid ?? c.points[0]?.metric;
      let committed = true;
      if (deviceid !== undefined) {
        try {
          committed = await commit(deviceid, c);
        } catch (err) {
          throw translateCassandraError(err, 'write shadow');
        }
      }
      if (committed && deviceid !== undefined && c.revisions && c.revisions.length > 0) await keepRevisions(deviceid, c.revisions);
      return committed;
    },

    ...createCassandraPointOutbox(conn),
  };
}


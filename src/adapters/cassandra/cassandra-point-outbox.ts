import { types } from 'cassandra-driver';
import * as t from 'io-ts';
import { PointOutbox } from '../../timeseries/port';
import { Point } from '../../timeseries/point';
import { BigintNumber, decodeRow, compareTimeUuids, TimeUuidCodec } from './cassandra-codecs';
import { CassandraConnection } from './cassandra-client';
import { translateCassandraError } from './cassandra-errors';
import { PENDING_SHARDS } from './cassandra-schema';

/**
 * A device's marker in `pending_outboxes` is removed only when its partition was found empty and the marker is at
 * least this old, in ms: a commit marks first and writes its points next, so a younger marker may belong to a commit
 * still on its way. Far above a commit's longest time (the server's 5 s write plus 5 s CAS contention timeouts).
 */
export const OUTBOX_MARKER_GRACE_MS = 60_000;

/** Shadow partitions one peek reads; a longer backlog is served in turns (see `rotate`). */
const DEVICES_PER_PEEK = 256;
const READ_CONCURRENCY = 32;
/** Rows fetched per page of one device's outbox. */
const PAGE_ROWS = 200;
/** Peeks remembered until `remove`; an older one's rows are simply read again by a later peek. */
const MARKS_KEPT = 8;

const MarkerRow = t.type({ deviceid: t.string, marked_at: BigintNumber });
const OutboxRow = t.type({ seq: TimeUuidCodec, points: t.string, written_at: BigintNumber });
const PointsJson = t.array(
  t.intersection([
    t.type({ metric: t.string, tags: t.record(t.string, t.string), timestamp: t.number, value: t.number }),
    // Points that expire (issue 23 §2); rows written before retention have none.
    t.partial({ expiresAt: t.number }),
  ]),
);

interface Entry {
  deviceid: string;
  seq: types.TimeUuid;
  points: Point[];
  /** Write time in µs, as Cassandra keeps it. */
  writtenAt: number;
}

/** What a peek took from one device: every row up to `seq`, written at `writtenAt` µs or before. */
interface Taken {
  seq: types.TimeUuid;
  writtenAt: number;
}

/**
 * The outbox side of the `shadows` partitions (see cassandra-shadow-store.ts). `peek` reads the devices that
 * `pending_outboxes` marks, merges their rows by commit id (oldest first) and remembers, per device, the last row it
 * took; `remove` drops those rows with one range tombstone per device. That is safe because commits append above
 * `tail` only: no row can appear below one already read. The tombstone carries the rows' own write time + 1 µs
 * rather than this node's clock, so it covers them even if the clocks of this node and the coordinator that wrote
 * them disagree. A relay on another node may read the same rows and write them too; a point written twice keeps its
 * value (src/timeseries/outbox-relay.ts).
 */
export function createCassandraPointOutbox(conn: CassandraConnection): PointOutbox {
  const { client, tables } = conn;
  const cql = {
    markers: `SELECT deviceid, WRITETIME(marked) AS marked_at FROM ${tables.pending} WHERE shard = ?`,
    rows: `SELECT seq, points, WRITETIME(points) AS written_at FROM ${tables.shadows} WHERE deviceid = ?`,
    drop: `DELETE FROM ${tables.shadows} USING TIMESTAMP ? WHERE deviceid = ? AND seq <= ?`,
    unmark: `DELETE FROM ${tables.pending} USING TIMESTAMP ? WHERE shard = ? AND deviceid = ?`,
  };
  const marks = new Map<number, Map<string, Taken>>();
  let lastMark = 0;
  /** The last device served when the backlog spans more than one peek. */
  let rotation = '';

  async function markedDevices(): Promise<{ deviceid: string; shard: number; markedAt: number }[]> {
    const shards = Array.from({ length: PENDING_SHARDS }, (_, shard) => shard);
    const perShard = await Promise.all(
      shards.map(async (shard) =>
        (await client.execute(cql.markers, [shard])).rows.map((row) => ({ ...decodeRow(MarkerRow, row), shard })),
      ),
    );
    return perShard.flat().map(({ deviceid, marked_at, shard }) => ({ deviceid, shard, markedAt: marked_at }));
  }

  /** Up to `max` points of one device's oldest rows (whole rows; at least one). */
  async function oldestOf(deviceid: string, max: number): Promise<Entry[]> {
    const entries: Entry[] = [];
    let count = 0;
    for await (const raw of await client.execute(cql.rows, [deviceid], { fetchSize: PAGE_ROWS })) {
      // A partition with its shadow but no rows answers one row of nulls.
      if (raw.get('seq') === null) continue;
      const row = decodeRow(OutboxRow, raw);
      const points = decodeRow(PointsJson, JSON.parse(row.points));
      entries.push({ deviceid, seq: row.seq, points, writtenAt: row.written_at });
      count += points.length;
      if (count >= max) break;
    }
    return entries;
  }

  /** Devices in id order, starting after the last one served, so that each gets its turn. */
  function rotate<D extends { deviceid: string }>(devices: D[]): D[] {
    const sorted = devices.sort((a, b) => (a.deviceid < b.deviceid ? -1 : a.deviceid > b.deviceid ? 1 : 0));
    if (sorted.length <= DEVICES_PER_PEEK) return sorted;
    const start = sorted.findIndex((d) => d.deviceid > rotation);
    const turned = start <= 0 ? sorted : [...sorted.slice(start), ...sorted.slice(0, start)];
    const chosen = turned.slice(0, DEVICES_PER_PEEK);
    rotation = chosen[chosen.length - 1].deviceid;
    return chosen;
  }

  async function peek(max: number): Promise<{ points: Point[]; upTo: number }> {
    const devices = rotate(await markedDevices());
    const entries: Entry[] = [];
    const idle: typeof devices = [];
    let next = 0;
    const worker = async () => {
      while (next < devices.length) {
        const device = devices[next++];
        const oldest = await oldestOf(device.deviceid, max);
        if (oldest.length === 0) idle.push(device);
        entries.push(...oldest);
      }
    };
    await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, devices.length) }, worker));

    const staleBefore = (Date.now() - OUTBOX_MARKER_GRACE_MS) * 1000;
    // A marker rewritten since it was read is newer than its own write time, so this delete leaves it alone.
    await Promise.all(
      idle.filter((d) => d.markedAt < staleBefore).map((d) => client.execute(cql.unmark, [types.Long.fromNumber(d.markedAt), d.shard, d.deviceid])),
    );

    // Rows of one device are in commit order already, so taking the oldest across devices takes a prefix of each.
    entries.sort((a, b) => compareTimeUuids(a.seq, b.seq));
    const points: Point[] = [];
    const taken = new Map<string, Taken>();
    for (const entry of entries) {
      if (points.length > 0 && points.length + entry.points.length > max) break;
      points.push(...entry.points);
      const before = taken.get(entry.deviceid);
      taken.set(entry.deviceid, { seq: entry.seq, writtenAt: Math.max(before?.writtenAt ?? 0, entry.writtenAt) });
    }
    if (taken.size === 0) return { points, upTo: 0 };
    marks.set(++lastMark, taken);
    for (const id of marks.keys()) if (id <= lastMark - MARKS_KEPT) marks.delete(id);
    return { points, upTo: lastMark };
  }

  async function remove(upTo: number): Promise<void> {
    for (const [id, taken] of marks) {
      if (id > upTo) continue;
      await Promise.all(
        [...taken].map(([deviceid, { seq, writtenAt }]) =>
          client.execute(cql.drop, [types.Long.fromNumber(writtenAt + 1), deviceid, seq]),
        ),
      );
      marks.delete(id);
    }
  }

  return {
    async peek(max) {
      try {
        return await peek(max);
      } catch (err) {
        throw translateCassandraError(err, 'read the point outbox');
      }
    },
    async remove(upTo) {
      try {
        await remove(upTo);
      } catch (err) {
        throw translateCassandraError(err, 'empty the point outbox');
      }
    },
  };
}

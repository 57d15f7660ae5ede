import type { Database } from 'better-sqlite3';
import * as t from 'io-ts';
import { decodeOrThrow } from '../../core/decode-errors';
import { AppError } from '../../core/errors';
import { ShadowCommit, ShadowStore, StagedWrite } from '../../shadows/port';
import { PointOutbox } from '../../timeseries/port';
import { Point } from '../../timeseries/point';
import { decodeOutboxRow, encodeOutboxRow } from './sqlite-outbox-codec';
import { openSqliteConnection } from './sqlite-open';
import { revisionKeeper } from './sqlite-shadow-history';
import { usageAdder } from './sqlite-quota-store';
import { createWalSync } from './sqlite-wal-sync';

const fromBuffer = new t.Type<Buffer, Buffer, unknown>('Buffer', Buffer.isBuffer, (u, c) => (Buffer.isBuffer(u) ? t.success(u) : t.failure(u, c)), (b) => b);

const ShadowRow = t.type({ deviceid: t.string, data: t.string, rev: t.number, modified: t.number, timestamp: t.number });
/** `points`: a blob (sqlite-outbox-codec.ts), or JSON text in rows written before it. */
const OutboxRow = t.type({ id: t.number, points: t.union([t.string, fromBuffer]) });

/** How long removed outbox rows may wait for a shadow commit to carry their DELETE, in ms. */
const OUTBOX_DELETE_DELAY_MS = 200;

interface Pending {
  readonly commit: ShadowCommit;
  resolve(staged: StagedWrite): void;
  reject(err: unknown): void;
}

export interface SqliteShadowStore extends ShadowStore, PointOutbox {
  /** Closes the store's own connection (not `db`). */
  close(): void;
}

const onDisk = Promise.resolve();

/**
 * Shadows, the point outbox, the quota counters and the shadow history share one SQLite database, so a write, its
 * points, its quota charge and its revisions commit in one transaction (a group sweeps expired revisions too).
 *
 * Group commit (issue 12): the writes submitted while the event loop handles one batch of I/O share one transaction.
 * Each write runs in a savepoint of its own, so a failure (a lost compare-and-set, a device deleted) stores nothing
 * of that write and leaves the others. The transactions run on a connection of the store's own with
 * synchronous=NORMAL, and the WAL is synced after each one off the event loop (sqlite-wal-sync.ts): the outcome of
 * every write is known at once (stageShadowWrite), and each caller is answered only once the sync has returned, so
 * an acknowledged write is on disk as with synchronous=FULL. Meanwhile the thread serves other requests, and the
 * next writes of a device may already build on the committed ones. A committed write is visible to readers for the
 * few milliseconds before it is on disk; a crash of the machine in that window loses it, unacknowledged. An
 * in-memory database (tests) commits on `db` itself.
 *
 * The outbox rows the relay has moved are deleted in the next of those transactions (or after
 * OUTBOX_DELETE_DELAY_MS without one): until then `peek` skips them. A DELETE lost in a crash only means those
 * points are written again, which is harmless (timeseries/outbox-relay.ts).
 */
export function createSqliteShadowStore(db: Database): SqliteShadowStore {
  const own = !db.memory;
  const writer = own ? openSqliteConnection(db.name, 'NORMAL') : db;
  const synced = own ? createWalSync(db.name) : Object.assign(() => onDisk, { close: () => undefined });
  const select = db.prepare('SELECT * FROM shadows WHERE deviceid = ?');
  const insert = writer.prepare(
    `INSERT INTO shadows (deviceid, data, rev, modified, timestamp) VALUES (@deviceid, @data, @rev, @modified, @timestamp)
     ON CONFLICT (deviceid) DO NOTHING`,
  );
  const update = writer.prepare(
    `UPDATE shadows SET data = @data, rev = @rev, modified = @modified, timestamp = @timestamp
     WHERE deviceid = @deviceid AND rev = @expectedRev`,
  );
  const deviceExists = writer.prepare('SELECT 1 FROM devices WHERE deviceid = ?');
  const enqueue = writer.prepare('INSERT INTO point_outbox (points) VALUES (?)');
  const oldest = db.prepare('SELECT id, points FROM point_outbox WHERE id > ? ORDER BY id LIMIT ?');
  const removeUpTo = writer.prepare('DELETE FROM point_outbox WHERE id <= ?');
  const addUsage = usageAdder(writer);
  const history = revisionKeeper(writer);

  const commitOne = writer.transaction(({ shadow, expectedRev, points, charge, revisions }: ShadowCommit): boolean => {
    const data = shadow && JSON.stringify(shadow.data);
    if (shadow) {
      const row = { ...shadow, data };
      const changed = (expectedRev === 0 ? insert.run(row) : update.run({ ...row, expectedRev })).changes;
      if (changed !== 1) {
        // The update found no row at that rev: a lost race, or a device deleted with its shadow (port contract).
        if (deviceExists.get(shadow.deviceid) === undefined) throw new AppError('DEVICE_NOT_FOUND', `device ${shadow.deviceid} no longer exists`);
        return false;
      }
    }
    if (points.length > 0) enqueue.run(encodeOutboxRow(points));
    if (charge) addUsage(charge);
    // The newest revision is the shadow just stored: its JSON is the row's.
    if (revisions) history.keep(revisions, shadow && { shadow, data: data! });
    return true;
  });

  /** Outbox rows up to this id are moved and wait for their DELETE. */
  let removedUpTo = 0;
  let deletedUpTo = 0;
  let deleteTimer: NodeJS.Timeout | undefined;
  let waiting: Pending[] = [];

  /** Runs inside the group's transaction: each write in its own savepoint (a nested better-sqlite3 transaction). */
  const commitGroup = writer.transaction((group: readonly Pending[]): (boolean | { error: unknown })[] => {
    if (removedUpTo > deletedUpTo) removeUpTo.run(removedUpTo);
    const kept = group.reduce((n, p) => n + (p.commit.revisions?.length ?? 0), 0);
    if (kept > 0) history.sweep(Date.now(), kept);
    return group.map((p) => {
      try {
        return commitOne(p.commit);
      } catch (error) {
        return { error: translate(error, p.commit) };
      }
    });
  });

  function flush(): void {
    clearTimeout(deleteTimer);
    deleteTimer = undefined;
    const group = waiting;
    waiting = [];
    if (group.length === 0 && removedUpTo <= deletedUpTo) return;
    if (!writer.open) return group.forEach((p) => p.reject(new AppError('SHUTTING_DOWN', 'the store is closed')));
    let outcomes: (boolean | { error: unknown })[];
    const deleting = removedUpTo;
    try {
      outcomes = commitGroup(group);
    } catch (err) {
      history.forgetSweep();
      return group.forEach((p) => p.reject(err));
    }
    deletedUpTo = Math.max(deletedUpTo, deleting);
    const durable = group.some((_, i) => outcomes[i] === true) ? synced() : onDisk;
    // Not every caller may look at `durable` (a lost compare-and-set has nothing to wait for): never unhandled.
    durable.catch(() => undefined);
    group.forEach((p, i) => {
      const outcome = outcomes[i];
      if (typeof outcome === 'boolean') p.resolve({ committed: outcome, durable: outcome ? durable : onDisk });
      else p.reject(outcome.error);
    });
  }

  function stageShadowWrite(commit: ShadowCommit): Promise<StagedWrite> {
    return new Promise((resolve, reject) => {
      if (waiting.length === 0) setImmediate(flush);
      waiting.push({ commit, resolve, reject });
    });
  }

  return {
    async readShadow(deviceid) {
      const row = select.get(deviceid);
      if (row === undefined) return undefined;
      const r = decodeOrThrow(ShadowRow, row, 'INTERNAL');
      return { ...r, data: JSON.parse(r.data) };
    },
    stageShadowWrite,
    async commitShadowWrite(commit) {
      const staged = await stageShadowWrite(commit);
      await staged.durable;
      return staged.committed;
    },
    async peek(max) {
      const points: Point[] = [];
      let upTo = removedUpTo;
      // Rows hold whole writes; stop at the first row that would pass `max` (but always take one).
      for (const raw of oldest.iterate(removedUpTo, max)) {
        const row = decodeOrThrow(OutboxRow, raw, 'INTERNAL');
        const batch = decodeOutboxRow(row.points);
        if (points.length > 0 && points.length + batch.length > max) break;
        points.push(...batch);
        upTo = row.id;
      }
      return { points, upTo };
    },
    async remove(upTo) {
      removedUpTo = Math.max(removedUpTo, upTo);
      deleteTimer ??= setTimeout(() => {
        deleteTimer = undefined;
        if (waiting.length === 0 && writer.open && removedUpTo > deletedUpTo) flush();
      }, OUTBOX_DELETE_DELAY_MS);
      deleteTimer.unref();
    },
    close() {
      clearTimeout(deleteTimer);
      // Writes still waiting are committed (and their sync started) before the connection goes.
      flush();
      if (own && writer.open) writer.close();
      synced.close();
    },
  };
}

function translate(err: unknown, c: ShadowCommit): unknown {
  if (err instanceof Error && 'code' in err && err.code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
    return new AppError('DEVICE_NOT_FOUND', `device ${c.shadow?.deviceid ?? ''} no longer exists`);
  }
  return err;
}

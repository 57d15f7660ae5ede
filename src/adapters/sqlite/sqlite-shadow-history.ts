import type { Database } from 'better-sqlite3';
import * as t from 'io-ts';
import { decodeOrThrow } from '../../core/decode-errors';
import { isJsonObject } from '../../core/json';
import { AppError } from '../../core/errors';
import { RevisionToKeep, ShadowHistory, upperKeyOf } from '../../shadows/history';
import { Shadow } from '../../shadows/shadow';

const RevisionRow = t.type({ deviceid: t.string, rev: t.number, modified: t.number, timestamp: t.number, data: t.string });

/** Expired revisions a commit sweeps at least, and per revision it keeps: the sweep outpaces the writes. */
const SWEEP_MIN = 256;
const SWEEP_PER_KEPT = 2;

function toShadow(raw: unknown): Shadow {
  const row = decodeOrThrow(RevisionRow, raw, 'INTERNAL');
  const data: unknown = JSON.parse(row.data);
  if (!isJsonObject(data)) throw new AppError('INTERNAL', `shadow ${row.deviceid} rev ${row.rev}: stored data is not an object`);
  return { deviceid: row.deviceid, data, rev: row.rev, modified: row.modified, timestamp: row.timestamp };
}

/** Reads the history in `shadow_revisions` (sqlite-database.ts); never a row expired at `now`. */
export function createSqliteShadowHistory(db: Database): ShadowHistory {
  const columns = 'deviceid, rev, modified, timestamp, data';
  const live = '(expires IS NULL OR expires > @now)';
  const at = db.prepare(`SELECT ${columns} FROM shadow_revisions WHERE deviceid = @deviceid AND modified <= @at AND ${live}
                         ORDER BY modified DESC, rev DESC LIMIT 1`);
  const oldest = db.prepare(`SELECT ${columns} FROM shadow_revisions WHERE deviceid = @deviceid AND ${live}
                             ORDER BY modified, rev LIMIT 1`);
  const page = db.prepare(`SELECT ${columns} FROM shadow_revisions
                           WHERE deviceid = @deviceid AND (modified, rev) >= (@from, 0) AND (modified, rev) <= (@toModified, @toRev)
                             AND ${live}
                           ORDER BY modified DESC, rev DESC LIMIT @limit`);
  return {
    async revisionAt(deviceid, time, now) {
      const row = at.get({ deviceid, at: time, now });
      return row === undefined ? undefined : toShadow(row);
    },
    async oldestRevision(deviceid, now) {
      const row = oldest.get({ deviceid, now });
      return row === undefined ? undefined : toShadow(row);
    },
    async listRevisions(deviceid, range, now) {
      const upper = upperKeyOf(range);
      return page.all({ deviceid, from: range.from, toModified: upper.modified, toRev: upper.rev, limit: range.limit, now }).map(toShadow);
    },
  };
}

/**
 * Keeps revisions, and sweeps expired ones, inside a shadow commit's transaction on `writer`. A retried commit
 * writes the same rows again (INSERT OR REPLACE by device and rev).
 *
 * A sweep runs only once a kept revision may have expired: the keeper remembers the earliest expiry it may have left
 * in the table (read once here, then lowered by each revision it keeps, and read again after a sweep that found no
 * more), so the commits of a store whose revisions expire in days, or never, run no DELETE at all (issue 26: an
 * empty sweep cost each group commit 5 to 25 us of the event loop). Only this connection adds revisions; a device
 * deleted with its revisions only leaves that earliest expiry too early, which costs one empty sweep.
 */
export function revisionKeeper(writer: Database) {
  const insert = writer.prepare(
    `INSERT OR REPLACE INTO shadow_revisions (deviceid, rev, modified, timestamp, data, expires)
     VALUES (@deviceid, @rev, @modified, @timestamp, @data, @expires)`,
  );
  const sweep = writer.prepare(
    `DELETE FROM shadow_revisions WHERE rowid IN (
       SELECT rowid FROM shadow_revisions WHERE expires IS NOT NULL AND expires <= ? LIMIT ?)`,
  );
  const earliest = writer.prepare('SELECT min(expires) FROM shadow_revisions WHERE expires IS NOT NULL').pluck();
  const readEarliest = (): number => (earliest.get() as number | null) ?? Infinity;
  /** No revision in the table expires before this (epoch ms); Infinity: none expires. */
  let sweepDue = readEarliest();
  return {
    /** `stored`: a shadow of the commit already serialized (its row's JSON), not serialized again. */
    keep(revisions: readonly RevisionToKeep[], stored?: { shadow: Shadow; data: string }): void {
      for (const { shadow, expiresAt } of revisions) {
        const data = shadow === stored?.shadow ? stored.data : JSON.stringify(shadow.data);
        insert.run({ ...shadow, data, expires: expiresAt ?? null });
        if (expiresAt !== undefined && expiresAt < sweepDue) sweepDue = expiresAt;
      }
    },
    /**
     * Deletes expired revisions, at least twice as many as the group keeps, so the table never holds much more than
     * its retention; nothing when none can have expired yet.
     */
    sweep(now: number, kept: number): void {
      if (sweepDue > now) return;
      const limit = Math.max(SWEEP_MIN, SWEEP_PER_KEPT * kept);
      if (sweep.run(now, limit).changes < limit) sweepDue = readEarliest();
    },
    /** After a transaction that swept was rolled back: the rows it deleted are back, so the next commit looks again. */
    forgetSweep(): void {
      sweepDue = -Infinity;
    },
  };
}

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
  return {
    /** `stored`: a shadow of the commit already serialized (its row's JSON), not serialized again. */
    keep(revisions: readonly RevisionToKeep[], stored?: { shadow: Shadow; data: string }): void {
      for (const { shadow, expiresAt } of revisions) {
        const data = shadow === stored?.shadow ? stored.data : JSON.stringify(shadow.data);
        insert.run({ ...shadow, data, expires: expiresAt ?? null });
      }
    },
    /** Deletes expired revisions, at least twice as many as the group keeps, so the table never holds much more than its retention. */
    sweep(now: number, kept: number): void {
      sweep.run(now, Math.max(SWEEP_MIN, SWEEP_PER_KEPT * kept));
    },
  };
}

import { Shadow } from './shadow';

/**
 * Shadow history (issue 25 §3, docs/device-api.md "Shadow history"): every committed write keeps the whole document
 * it left, as a revision. Devices mostly write all their fields each time, so a patch would be nearly as large as the
 * document; a whole document per revision makes every revision stand alone (`?at=` reads one row, nothing to
 * replay, no snapshot to keep alive past the retention, and a revision lost in a crash breaks no other).
 */
export interface RevisionToKeep {
  readonly shadow: Shadow;
  /** From then on (epoch ms) it is never returned, and its space is reclaimed; absent: kept until the device is deleted. */
  readonly expiresAt?: number;
}

/** A revision's place in the history: newest first by the write's server time (`modified`), then by `rev`. */
export interface RevisionKey {
  readonly modified: number;
  readonly rev: number;
}

/** One page of revisions, newest first: `modified` within [from, to], and strictly older than `before` when given. */
export interface RevisionRange {
  readonly from: number;
  readonly to: number;
  readonly before?: RevisionKey;
  readonly limit: number;
}

/**
 * The kept revisions of shadows. They are written by the ShadowStore in the commit of their write
 * (ShadowCommit.revisions); a revision past its expiry is never answered, whatever the cleanup has done yet.
 */
export interface ShadowHistory {
  /** The newest kept revision whose `modified` is at or before `at`. */
  revisionAt(deviceid: string, at: number, now: number): Promise<Shadow | undefined>;
  /** The oldest kept revision. */
  oldestRevision(deviceid: string, now: number): Promise<Shadow | undefined>;
  listRevisions(deviceid: string, range: RevisionRange, now: number): Promise<Shadow[]>;
}

/** The revisions a commit keeps: each applied write's shadow, expiring `retentionMs` after its server time. */
export function revisionsToKeep(shadows: readonly Shadow[], retentionMs: number | undefined): RevisionToKeep[] {
  return shadows.map((shadow) => (retentionMs === undefined ? { shadow } : { shadow, expiresAt: shadow.modified + retentionMs }));
}

/**
 * The upper bound of a range as an inclusive key: `before` made inclusive (revs are integers), or the end of `to`.
 * Both stores read a page as `(modified, rev)` between (from, 0) and this.
 */
export function upperKeyOf(range: RevisionRange): RevisionKey {
  const end = { modified: range.to, rev: Number.MAX_SAFE_INTEGER };
  const before = range.before;
  if (before === undefined || before.modified > range.to) return end;
  return { modified: before.modified, rev: before.rev - 1 };
}

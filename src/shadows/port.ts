import { JsonObject } from '../core/json';
import { UsageCharge } from '../quotas/port';
import { FieldWarning } from '../schema/warnings';
import { Point } from '../timeseries/point';
import { RevisionToKeep } from './history';
import { Shadow } from './shadow';

export interface ShadowCommit {
  /** The new shadow, stored only if the stored rev is still `expectedRev` (0 = none stored yet). */
  shadow?: Shadow;
  expectedRev: number;
  /** Points of the write, queued for the time-series store in the same atomic step (see PointOutbox in timeseries/port.ts). */
  points: readonly Point[];
  /**
   * Quota usage of the write, added to the counters in the same atomic step (issue 5 §5). Only a store that keeps the
   * quota ledger in its own database is given one (Reservation.charge: SQLite); a store that cannot add it atomically
   * refuses a commit that carries one rather than ignore it. Without it, the quota service saves the charge once the
   * write is committed, and gives it back when it is not (src/quotas/service.ts).
   */
  charge?: UsageCharge;
  /**
   * The shadow after each applied write of the commit, in rev order (the last one is `shadow`), kept as its history
   * (shadows/history.ts) in the same commit: none is kept when the compare-and-set fails.
   */
  revisions?: readonly RevisionToKeep[];
}

/** Where shadows live. A device's shadow is deleted together with the device (see DeviceStore). */
export interface ShadowStore {
  /** Undefined when the device's shadow was never written. */
  readShadow(deviceid: string): Promise<Shadow | undefined>;
  /**
   * Stores the shadow (compare-and-set on rev, so concurrent writers never lose each other's changes), queues
   * the points and adds the charge, all or nothing. Returns false, having stored nothing, when another writer got there first. Throws
   * AppError('DEVICE_NOT_FOUND') when the device is gone.
   */
  commitShadowWrite(commit: ShadowCommit): Promise<boolean>;
  /**
   * commitShadowWrite in two steps, for a store whose commits become visible before they are on disk: resolves as
   * soon as the outcome is known, with `durable`, which resolves once the write is on disk (or rejects if it could
   * not be made so). A write may be acknowledged only after `durable`; the device's next write may be planned on it
   * at once (shadows/write-queue.ts). Stores without it commit durably in commitShadowWrite.
   */
  stageShadowWrite?(commit: ShadowCommit): Promise<StagedWrite>;
}

export interface StagedWrite {
  /** False, nothing stored, when another writer got there first (as commitShadowWrite's false). */
  committed: boolean;
  durable: Promise<void>;
}

/**
 * An applied write of a device's shadow, as the device hears of it on `@shadow/data/updated` (docs/mqtt.md): what was
 * written (`data`, the `$NEW` side; for an overwrite the whole new document, then `merged: false`) and the shadow's
 * metadata after it.
 */
export interface ShadowNotice {
  deviceid: string;
  data: JsonObject;
  rev: number;
  modified: number;
  timestamp: number;
  merged?: false;
  warnings?: FieldWarning[];
  warningsOmitted?: number;
}

/** Tells a device of every applied write of its shadow, whoever made it and over whichever transport. */
export interface ShadowNotices {
  /** Resolves once the notice is handed on; never rejects (a notice lost is logged, the write stands). */
  announce(notice: ShadowNotice): Promise<void>;
  /** Tells applications watching the device's feed of the points a write recorded; never rejects. */
  recorded?(deviceid: string, points: readonly Point[]): Promise<void>;
}

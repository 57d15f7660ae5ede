import { UsageCharge } from '../quotas/port';
import { Point } from '../timeseries/point';
import { Shadow } from './shadow';

export interface ShadowCommit {
  /** The new shadow, stored only if the stored rev is still `expectedRev` (0 = none stored yet). */
  shadow?: Shadow;
  expectedRev: number;
  /** Points of the write, queued for the time-series store in the same atomic step (see PointOutbox). */
  points: readonly Point[];
  /** Quota usage of the write, added to the counters in the same atomic step (issue 5 §5). */
  charge?: UsageCharge;
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
}

/**
 * Points accepted with shadow writes and not yet in the time-series store, oldest first. Durable: what a commit
 * queued survives a restart and an unreachable time-series backend.
 */
export interface PointOutbox {
  /** Up to about `max` of the oldest queued points, and a mark to remove them with once stored. */
  peek(max: number): Promise<{ points: Point[]; upTo: number }>;
  remove(upTo: number): Promise<void>;
}

/**
 * One stored point (the design's write rule): metric = the device's ClientID, one tag `attr` = the shadow field's
 * dotted path, timestamp in epoch ms, a finite number as value.
 */
export interface Point {
  readonly metric: string;
  readonly tags: Readonly<Record<string, string>>;
  readonly timestamp: number;
  readonly value: number;
  /**
   * When the point expires (epoch ms): from then on it is never returned, and its space may be reclaimed. Absent: kept
   * until deleted. Set once, from the retention in force when it was written (timeseries/retention.ts).
   */
  readonly expiresAt?: number;
}

/** The stored points of one series (one metric + one exact tag set), sorted by timestamp, ascending. */
export interface StoredSeries {
  readonly tags: Readonly<Record<string, string>>;
  readonly timestamps: ArrayLike<number>;
  readonly values: ArrayLike<number>;
}

/** Tag filter of a query (KairosDB): a series matches when, for every tag named, its value is one of the listed. */
export type TagFilter = Readonly<Record<string, readonly string[]>>;

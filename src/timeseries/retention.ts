/**
 * How long points are kept (issue 23 §2), at three levels, the most specific one winning: a field's own TTL (a
 * datatag's, or NETPIE's schema `operation.store.ttl`), else its project's retention, else the service's
 * (POINT_RETENTION). Each level is a duration in ms, or undefined for "kept until deleted".
 */
export interface RetentionPolicy {
  /** The retention of a project's points without a TTL of their own: the project's, else the service default. */
  retentionOf(projectid: string): Promise<number | undefined>;
}

/** When a point at `timestamp` expires, counted from its own time (not from when it was written); undefined: never. */
export function expiryOf(timestamp: number, fieldTtlMs: number | undefined, projectRetentionMs: number | undefined): number | undefined {
  const ttl = fieldTtlMs ?? projectRetentionMs;
  return ttl === undefined ? undefined : timestamp + ttl;
}

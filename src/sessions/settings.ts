/** The bounds of MQTT sessions and retained messages (SESSION_*, RETAINED_PER_GROUP_LIMIT; docs/mqtt.md "Persistent sessions"). */
export interface SessionLimits {
  /** A persistent session not connected for this long is ended: subscriptions, queue, will. */
  readonly expirySeconds: number;
  /** Messages one session's queue holds; when full, the oldest is dropped. */
  readonly queueLimit: number;
  /** Retained topics one group (or one device's private topics) may hold. */
  readonly retainedPerGroupLimit: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = Object.freeze({
  // 7 days, a common broker default (AWS IoT keeps persistent sessions 1 hour to 7 days; EMQX's default is 2 hours).
  expirySeconds: 7 * 24 * 3600,
  queueLimit: 1000,
  retainedPerGroupLimit: 1000,
});

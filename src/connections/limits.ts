/**
 * The connection inspector's bounds (docs/operations.md "Connection inspector"). Each node keeps its own history in
 * memory: a restart starts it afresh, and its size is bounded whatever devices or attackers do.
 */
export const CONNECTION_LOG_LIMITS = {
  /** Events kept per device and node; the oldest goes first. */
  eventsPerDevice: 50,
  /**
   * Devices with a history on a node; the one whose last event is oldest goes first. An event takes about 300 bytes,
   * so a full log holds about 30 MB; a quiet device's history may go, its live connection is always shown.
   */
  devices: 2_000,
  /** How long a node waits for the other nodes' parts of an answer; the nodes still silent are named in it. */
  gatherTimeoutMs: 1500,
  /** Characters of a kick's reason. */
  kickReasonLength: 200,
  /** Characters of an event's detail (an error message): longer ones are cut. */
  detailLength: 200,
};

export type ConnectionLogLimits = typeof CONNECTION_LOG_LIMITS;

/** Limits of the data-store API, named in docs/limits-and-errors.md ("Limits"). */
export const QUERY_LIMITS = {
  /** Bytes of one query body. Larger -> 413 PAYLOAD_TOO_LARGE. */
  maxBodyBytes: 1024 * 1024,
} as const;

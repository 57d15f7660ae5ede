/** Shadow limits, named in docs/limits-and-errors.md ("Limits"). */
export const SHADOW_LIMITS = {
  /** Bytes of one shadow write's request body, REST or CoAP. Larger -> 413 PAYLOAD_TOO_LARGE (CoAP 4.13). */
  maxWriteBodyBytes: 256 * 1024,
  /** Bytes of one batch's request body, REST or CoAP. */
  maxBatchBodyBytes: 1024 * 1024,
  /** Nesting depth of `data`: `{"a":{"b":1}}` has depth 2. Deeper -> 400 INVALID_BODY. */
  maxDepth: 16,
  /** Characters in one member name. */
  maxKeyLength: 256,
  /** Bytes of a stored shadow document as JSON. Larger -> 413 SHADOW_TOO_LARGE, nothing applied. */
  maxDocumentBytes: 64 * 1024,
  /** Items in one batch (spec section 8). */
  maxBatchItems: 100,
  /** Below this, a batch or write time is relative to now, in ms (spec 4.6 rule 2). */
  relativeThresholdMs: 8_388_608_000,
  /** Times further than this in the future are refused, so one bad clock cannot freeze a shadow. */
  maxFutureMs: 24 * 3600 * 1000,
} as const;

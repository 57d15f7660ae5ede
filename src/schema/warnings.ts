/**
 * What a write lost or changed, per field (netpie reference §11.1: NETPIE drops such fields silently; we say so).
 * Sent in the reply of every transport: REST and CoAP bodies, MQTT `@shadow/data/updated` and batch replies.
 */
export interface FieldWarning {
  /** The batch item, as its index in the request's `batch` array; absent for single writes. */
  index?: number;
  field: string;
  /**
   * `coerced`: stored converted to the schema's type; `dropped`: not stored at all; `unrecorded`: kept in the shadow,
   * but its datatag recorded no point (a value it cannot cast, or its expression failed: docs/data-store.md "Datatags").
   */
  action: 'coerced' | 'dropped' | 'unrecorded';
  /** `type`, `range` (minimum/maximum), `additionalProperties` (not in a closed schema), `expression` (it failed). */
  reason: 'type' | 'range' | 'additionalProperties' | 'expression';
  message: string;
}

/** At most this many warnings go into one reply; `warningsOmitted` counts the rest. */
export const MAX_WARNINGS = 100;

/** The reply members for a list of warnings: nothing when there are none, so replies without them stay as they were. */
export function warningMembers(warnings: readonly FieldWarning[]): { warnings?: FieldWarning[]; warningsOmitted?: number } {
  if (warnings.length === 0) return {};
  if (warnings.length <= MAX_WARNINGS) return { warnings: [...warnings] };
  return { warnings: warnings.slice(0, MAX_WARNINGS), warningsOmitted: warnings.length - MAX_WARNINGS };
}

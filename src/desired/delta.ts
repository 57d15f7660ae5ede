import { isJsonObject, Json, JsonObject, setMember } from '../core/json';

/** Deep equality of JSON values: objects member by member (order aside), arrays element by element. */
export function sameJson(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  if (isJsonObject(a)) {
    if (!isJsonObject(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
  }
  return false;
}

/**
 * The delta (issue 25 §2, AWS IoT's `delta`): the members of `desired` whose value differs from `reported`'s.
 * Objects are compared member by member, so a nested desired member that the device reports already is left out;
 * arrays and scalars are compared whole, by value. A desired object met by a reported non-object is in the delta
 * whole. Members only `reported` has are never in it.
 */
export function computeDelta(desired: JsonObject, reported: JsonObject): JsonObject {
  const delta: JsonObject = {};
  for (const [key, wanted] of Object.entries(desired)) {
    const actual = Object.hasOwn(reported, key) ? reported[key] : undefined;
    if (isJsonObject(wanted) && isJsonObject(actual)) {
      const nested = computeDelta(wanted, actual);
      if (Object.keys(nested).length > 0) setMember(delta, key, nested);
    } else if (actual === undefined || !sameJson(wanted, actual)) {
      setMember(delta, key, wanted);
    }
  }
  return delta;
}

/**
 * True when a write of `data` (what it wrote: a merge patch, or the whole new document when `merged` is false) can
 * change the delta of `desired`: it overwrote the document, or it named a member `desired` has.
 */
export const touchesDesired = (desired: JsonObject, written: JsonObject, merged: boolean): boolean =>
  !merged || Object.keys(written).some((key) => Object.hasOwn(desired, key));

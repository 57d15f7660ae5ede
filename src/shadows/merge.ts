import { isJsonObject, JsonObject, setMember } from '../core/json';

/**
 * Deep merge of a shadow write (netpie reference §6.2): objects merge member by member, arrays and scalars replace,
 * and `null` deletes a member. Neither input is modified.
 */
export function mergeShadowData(current: JsonObject, patch: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(current)) setMember(out, key, value);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete out[key];
    } else if (isJsonObject(value)) {
      const existing = Object.prototype.hasOwnProperty.call(out, key) ? out[key] : undefined;
      setMember(out, key, mergeShadowData(isJsonObject(existing) ? existing : {}, value));
    } else {
      setMember(out, key, value);
    }
  }
  return out;
}

/** Overwrite replaces the whole document; members set to null are simply absent afterwards. */
export function overwriteShadowData(data: JsonObject): JsonObject {
  return mergeShadowData({}, data);
}

export function applyShadowWrite(current: JsonObject, data: JsonObject, merged: boolean): JsonObject {
  return merged ? mergeShadowData(current, data) : overwriteShadowData(data);
}

/**
 * Two merge writes as one (`later` after `earlier`), `null`s kept: what both wrote, as a client merging the result
 * into its copy of the shadow ends where it would after both.
 */
export function combineWrites(earlier: JsonObject, later: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(earlier)) setMember(out, key, value);
  for (const [key, value] of Object.entries(later)) {
    const before = Object.prototype.hasOwnProperty.call(out, key) ? out[key] : undefined;
    setMember(out, key, isJsonObject(value) && isJsonObject(before) ? combineWrites(before, value) : value);
  }
  return out;
}

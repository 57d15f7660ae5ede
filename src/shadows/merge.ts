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

import { isJsonObject, Json } from '../core/json';

/** The name of a value's type as messages show it. */
export function typeName(v: Json): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** `false`, `null`, `0` and `""` are false; every other value, empty arrays and objects too, is true. */
export const truthy = (v: Json): boolean => !(v === false || v === null || v === 0 || v === '');

/** Equality of JSON values: same type and same contents, members in any order. No type conversion. */
export function deepEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isJsonObject(a)) {
    if (!isJsonObject(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/**
 * A value as text, for string `+` and `{{ }}` templates: strings as they are, numbers and booleans as JavaScript
 * writes them, `null` as `null`, arrays and objects as JSON (NETPIE prints `[object Object]`; JSON says more).
 */
export function toText(v: Json): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/**
 * Rounds to `dp` decimal places, halves away from zero (`dp:1`: 0.25 -> 0.3, -0.25 -> -0.3), on the decimal
 * digits rather than the binary value, so 1.005 rounds to 1.01 as a person expects.
 */
export function roundTo(x: number, dp: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const shift = (n: number, by: number) => {
    const [mantissa, exponent] = String(n).split('e');
    return Number(`${mantissa}e${Number(exponent ?? 0) + by}`);
  };
  const rounded = shift(Math.round(shift(Math.abs(x), dp)), -dp);
  return Number.isFinite(rounded) ? Math.sign(x) * rounded : x;
}

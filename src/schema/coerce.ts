import { isJsonObject, Json } from '../core/json';
import { typeName } from '../expressions/values';
import { FieldType } from './field-type';

export type Coercion = { ok: true; value: Json; coerced: boolean } | { ok: false; why: string };

const kept = (value: Json): Coercion => ({ ok: true, value, coerced: false });
const changed = (value: Json): Coercion => ({ ok: true, value, coerced: true });
const refused = (value: Json, type: FieldType): Coercion => ({ ok: false, why: `${describe(value)} cannot be read as ${type === 'array' || type === 'object' ? 'an' : 'a'} ${type}` });

/** A value as a warning names it: `"2.3" (string)`, `{…} (object)`. */
export function describe(value: Json): string {
  const text = JSON.stringify(value);
  return `${text.length > 40 ? `${text.slice(0, 37)}...` : text} (${typeName(value)})`;
}

/**
 * The conversions of netpie reference §7.1: to string `2 -> "2"`, `true -> "true"`, `{x:123} -> "{\"x\":123}"`; to number
 * `"2.3" -> 2.3`, `true -> 1`; to boolean `"TruE" -> true`, `"False" -> false`, `0 -> false`, `1 -> true`. Anything else
 * (an object as a number, `"yes"` or `2` as a boolean) is refused. Arrays and objects are never converted.
 */
export function coerceTo(type: FieldType, value: Json): Coercion {
  switch (type) {
    case 'string':
      if (typeof value === 'string') return kept(value);
      if (typeof value === 'number' || typeof value === 'boolean') return changed(String(value));
      return changed(JSON.stringify(value));
    case 'number':
      if (typeof value === 'number') return kept(value);
      if (typeof value === 'boolean') return changed(value ? 1 : 0);
      if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return changed(Number(value));
      return refused(value, type);
    case 'boolean':
      if (typeof value === 'boolean') return kept(value);
      if (typeof value === 'string' && /^(true|false)$/i.test(value.trim())) return changed(value.trim().toLowerCase() === 'true');
      if (value === 0 || value === 1) return changed(value === 1);
      return refused(value, type);
    case 'array':
      return Array.isArray(value) ? kept(value) : refused(value, type);
    case 'object':
      return isJsonObject(value) ? kept(value) : refused(value, type);
  }
}

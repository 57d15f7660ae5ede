import * as t from 'io-ts';
import { isLeft } from 'fp-ts/Either';
import { queryError } from './kairos-query-error';
import { parseJavaDouble, parseJavaInteger } from './java-text';
import { TIME_UNITS, TimeUnit } from './query-model';
import { availableZoneIds, isValidZoneId } from './time-zone';

/**
 * io-ts codecs for the leaves of a query body, as KairosDB's Gson 2.2.4 reads them (reference §1, "JSON leniency"):
 * numbers also come as numeric strings, booleans as the strings "true"/"false". Failure messages are the Java
 * exception texts KairosDB would put after the field's context.
 */

const JAVA_LONG_MAX = 2 ** 63;

const fail = (u: unknown, c: t.Context, message: string) => t.failure<never>(u, c, message);
const textOf = (u: unknown) => (typeof u === 'string' ? u : JSON.stringify(u) ?? String(u));
const jsonKind = (u: unknown) =>
  u === null ? 'NULL' : Array.isArray(u) ? 'BEGIN_ARRAY' : typeof u === 'object' ? 'BEGIN_OBJECT' : typeof u === 'number' ? 'NUMBER' : typeof u === 'boolean' ? 'BOOLEAN' : 'STRING';

function integerCodec(name: string, min: number, max: number) {
  return new t.Type<number, number, unknown>(
    name,
    (u): u is number => typeof u === 'number' && Number.isInteger(u) && u >= min && u <= max,
    (u, c) => {
      const parsed = typeof u === 'number'
        ? (Number.isInteger(u) ? { value: u } : { error: `For input string: "${u}"` })
        : typeof u === 'string' ? parseJavaInteger(u) : { error: `Expected a number but was ${jsonKind(u)}` };
      if ('error' in parsed) return fail(u, c, parsed.error);
      if (parsed.value < min || parsed.value > max) return fail(u, c, `For input string: "${textOf(u)}"`);
      return t.success(parsed.value);
    },
    t.identity,
  );
}

/** A Java long: an integer, or a string of digits. */
export const JavaLong = integerCodec('long', -JAVA_LONG_MAX, JAVA_LONG_MAX - 1);
/** A Java int (32 bits). */
export const JavaInt = integerCodec('int', -(2 ** 31), 2 ** 31 - 1);

/** A Java double: a number, or a string Double.parseDouble accepts. */
export const JavaDouble = new t.Type<number, number, unknown>(
  'double',
  (u): u is number => typeof u === 'number' && Number.isFinite(u),
  (u, c) => {
    if (typeof u === 'number') return t.success(u);
    if (typeof u !== 'string') return fail(u, c, `Expected a double but was ${jsonKind(u)}`);
    const parsed = parseJavaDouble(u);
    if ('error' in parsed) return fail(u, c, parsed.error);
    if (!Number.isFinite(parsed.value)) return fail(u, c, `JSON forbids NaN and infinities: ${u}`);
    return t.success(parsed.value);
  },
  t.identity,
);

/** A boolean setter property (Gson's boolean adapter): true/false, or a string ("true" in any case is true). */
export const JavaBoolean = new t.Type<boolean, boolean, unknown>(
  'boolean',
  t.boolean.is,
  (u, c) => {
    if (typeof u === 'boolean') return t.success(u);
    if (typeof u === 'string') return t.success(u.toLowerCase() === 'true');
    return fail(u, c, `Expected a boolean but was ${jsonKind(u)}`);
  },
  t.identity,
);

/** JsonElement.getAsBoolean (the metric's exclude_tags): any primitive; only true or "true" count as true. */
export const ElementBoolean = new t.Type<boolean, boolean, unknown>(
  'boolean',
  t.boolean.is,
  (u, c) => {
    if (typeof u === 'boolean') return t.success(u);
    if (typeof u === 'string' || typeof u === 'number') return t.success(String(u).toLowerCase() === 'true');
    return fail(u, c, `Expected a boolean but was ${jsonKind(u)}`);
  },
  t.identity,
);

/** JsonElement.getAsString: a string, or a number or boolean as text. */
export const JavaString = new t.Type<string, string, unknown>(
  'string',
  t.string.is,
  (u, c) => {
    if (typeof u === 'string') return t.success(u);
    if (typeof u === 'number' || typeof u === 'boolean') return t.success(String(u));
    return fail(u, c, `Expected a string but was ${jsonKind(u)}`);
  },
  t.identity,
);

/** A time unit name: any case, plural required (TimeUnit.from); the failure text is KairosDB's. */
export const TimeUnitName = new t.Type<TimeUnit, string, unknown>(
  'TimeUnit',
  (u): u is TimeUnit => typeof u === 'string' && (TIME_UNITS as readonly string[]).includes(u),
  (u, c) => {
    const text = typeof u === 'string' || typeof u === 'number' || typeof u === 'boolean' ? String(u) : undefined;
    const unit = text === undefined ? undefined : TIME_UNITS.find((name) => name === text.toUpperCase());
    return unit === undefined
      ? fail(u, c, `${text ?? textOf(u)} is not a valid time unit, must be one of ${TIME_UNITS.join(',')}`)
      : t.success(unit);
  },
  t.identity,
);

/** A JSON object (a record); anything else fails with Gson's wording. */
export const JsonObjectCodec = new t.Type<Record<string, unknown>, Record<string, unknown>, unknown>(
  'object',
  (u): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u),
  (u, c) => (typeof u === 'object' && u !== null && !Array.isArray(u)
    ? t.success(u as Record<string, unknown>)
    : fail(u, c, `Not a JSON Object: ${textOf(u)}`)),
  t.identity,
);

export const JsonArrayCodec = new t.Type<unknown[], unknown[], unknown>(
  'array',
  Array.isArray,
  (u, c) => (Array.isArray(u) ? t.success(u) : fail(u, c, `Not a JSON Array: ${textOf(u)}`)),
  t.identity,
);

/**
 * Decodes one leaf; on failure throws a KairosQueryError `<context> <java message>`. KairosDB puts the offending
 * value itself in the context for units and zones (`query.metric[0].aggregators[0].bogus is not a valid time
 * unit`), hence the `.` joiner for those.
 */
export function decodeLeaf<A>(codec: t.Decoder<unknown, A>, value: unknown, context: string, joiner = ' '): A {
  const result = codec.decode(value);
  if (isLeft(result)) throw queryError(`${context}${joiner}${result.left[0]?.message ?? 'is invalid'}`);
  return result.right;
}

/**
 * A `time_zone` member (query level or aggregator level), read like KairosDB's DateTimeZoneDeserializer
 * (reference §3.5, §3.6 step 2): `""` means UTC; an unknown id fails with the offending id in the context and the
 * list of every id, e.g. `query.bogus is not a valid time zone, must be one of [Africa/Abidjan, ...]`.
 * Returns the zone id, `""` normalised to `UTC`.
 */
export function decodeZone(value: unknown, context: string): string {
  const id = decodeLeaf(JavaString, value, context);
  if (id === '') return 'UTC';
  if (!isValidZoneId(id)) {
    throw queryError(`${context}.${id} is not a valid time zone, must be one of [${availableZoneIds().join(', ')}]`);
  }
  return id;
}

/** Own members only: a key such as `constructor` or `__proto__` in a body is data, never the prototype's. */
export function member(object: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}

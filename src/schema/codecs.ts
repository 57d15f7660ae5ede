import * as t from 'io-ts';
import { closed, intBetween, stringMatching } from '../core/codecs';
import { expressionProblem } from '../expressions/compile';
import { Json, setMember } from '../core/json';
import { ShadowData } from '../shadows/codecs';
import { parseTtl } from '../timeseries/durations';
import { coerceTo } from './coerce';
import { FieldType } from './field-type';

/** Schema limits, named in the docs/limits-and-errors.md ("Limits"). */
export const SCHEMA_LIMITS = {
  /** Properties of one schema. */
  maxFields: 256,
  /** Decimal places of `dp`. */
  maxDp: 15,
} as const;

/** Property names: `[A-Za-z0-9_]`, the names NETPIE can store (netpie reference §7.1, §9). */
export const FieldName = stringMatching('field name', /^[A-Za-z0-9_]{1,128}$/, 'expected 1-128 characters of A-Z a-z 0-9 _');

/** A transform sees the incoming write as `$` and the stored shadow as `$$` (netpie reference §7.2), nothing else. */
export const TRANSFORM_VARIABLES: ReadonlySet<string> = new Set(['$', '$$']);

/** `base`, refused when `problem` names one; for rules io-ts types cannot say alone. */
export const withProblem = <A>(base: t.Type<A, A, unknown>, name: string, problem: (a: A) => string | undefined) =>
  new t.Type<A, A, unknown>(
    name,
    base.is,
    (u, c) => {
      const r = base.validate(u, c);
      if (r._tag === 'Left') return r;
      const why = problem(r.right);
      return why === undefined ? r : t.failure(u, c, why);
    },
    t.identity,
  );

/** An expression of the language of src/expressions, checked (syntax, variables, functions) on the way in. */
export const TransformExpression = withProblem(t.string, 'expression', (s) =>
  s.trim() === '' ? 'expected an expression' : expressionProblem(s, TRANSFORM_VARIABLES));

/** Any JSON value shadow data may hold (finite numbers, valid Unicode, not too deep). */
export const JsonValue = new t.Type<Json, Json, unknown>(
  'JSON value',
  (_u): _u is Json => true,
  (u, c) => {
    const r = ShadowData.validate({ value: u }, c);
    return r._tag === 'Left' ? r : t.success(r.right.value);
  },
  t.identity,
);

/**
 * How long a field's points are kept: NETPIE's ttl as given (`"30d"`, or a number of ms: timeseries/durations.ts), kept
 * as written so that a schema reads back as it was sent; ttlMsOf reads it.
 */
export const FieldTtl = withProblem(t.union([t.string, t.number]), 'ttl', (ttl) => {
  const parsed = parseTtl(ttl);
  return 'problem' in parsed ? parsed.problem : undefined;
});
export type FieldTtl = t.TypeOf<typeof FieldTtl>;

/** A decoded FieldTtl in ms. */
export function ttlMsOf(ttl: FieldTtl): number {
  const parsed = parseTtl(ttl);
  if ('problem' in parsed) throw new Error(`ttl ${ttl} was not checked: ${parsed.problem}`);
  return parsed.ms;
}

const Transform = closed({ expression: TransformExpression }, { dp: intBetween(0, SCHEMA_LIMITS.maxDp) });

const FieldSchemaShape = closed(
  {},
  {
    type: FieldType,
    minimum: t.number,
    maximum: t.number,
    /** Computed and written even when a write does not mention the field (needs a transform). */
    autofill: t.boolean,
    /** What `$$.<field>` reads while the shadow has no value for the field (our reading of NETPIE's `default`). */
    default: JsonValue,
    /** `false`: the field is kept in the shadow but recorded as no time-series points. */
    store: t.boolean,
    description: t.string,
    /**
     * `store.ttl`: NETPIE's older storage model (netpie reference §7.1): in a schema where any field has one, exactly
     * those fields are recorded, each kept for its ttl (docs/automation.md "Schemas").
     */
    operation: closed({}, { transform: Transform, store: closed({ ttl: FieldTtl }) }),
  },
);

const FieldSchemaRules = withProblem(FieldSchemaShape, 'field schema', (f) => {
  if ((f.minimum !== undefined || f.maximum !== undefined) && f.type !== 'number') return 'minimum and maximum need "type": "number"';
  if (f.minimum !== undefined && f.maximum !== undefined && f.minimum > f.maximum) return 'minimum is greater than maximum';
  if (f.autofill && f.operation?.transform === undefined) return 'autofill needs operation.transform.expression to compute the field';
  if (f.store === false && f.operation?.store !== undefined) return '"store": false and operation.store.ttl contradict each other';
  return undefined;
});

/**
 * A field's schema. A `default` of the wrong type is reported at `….default` with the default's own value, not at
 * the field with "got an object" (issue 10).
 */
export const FieldSchema = new t.Type<t.TypeOf<typeof FieldSchemaShape>, t.TypeOf<typeof FieldSchemaShape>, unknown>(
  'field schema',
  FieldSchemaRules.is,
  (u, c) => {
    const r = FieldSchemaRules.validate(u, c);
    if (r._tag === 'Left') return r;
    const f = r.right;
    if (f.default === undefined || f.default === null || f.type === undefined) return r;
    const coerced = coerceTo(f.type, f.default);
    if (coerced.ok && !coerced.coerced) return r;
    return t.failure(f.default, t.appendContext(c, 'default', JsonValue, f.default), `must be of type ${f.type}`);
  },
  t.identity,
);
export type FieldSchema = t.TypeOf<typeof FieldSchema>;

/**
 * The properties map: names checked, members kept as plain data (a property named `__proto__` is refused by the
 * name rule anyway, and the map is built without touching prototypes).
 */
const Properties = new t.Type<Record<string, FieldSchema>, Record<string, FieldSchema>, unknown>(
  'properties',
  (u): u is Record<string, FieldSchema> => typeof u === 'object' && u !== null,
  (u, c) => {
    if (typeof u !== 'object' || u === null || Array.isArray(u)) return t.failure(u, c, 'expected an object of field schemas');
    const entries = Object.entries(u);
    if (entries.length > SCHEMA_LIMITS.maxFields) return t.failure(u, c, `more than ${SCHEMA_LIMITS.maxFields} properties`);
    const errors: t.Errors = [];
    const out: Record<string, FieldSchema> = {};
    for (const [name, value] of entries) {
      const at = t.appendContext(c, name, FieldSchema, value);
      const key = FieldName.validate(name, at);
      if (key._tag === 'Left') {
        errors.push({ value: name, context: at, message: 'property names are 1-128 characters of A-Z a-z 0-9 _' });
        continue;
      }
      const r = FieldSchema.validate(value, at);
      if (r._tag === 'Left') errors.push(...r.left);
      else setMember(out as never, name, r.right as never);
    }
    return errors.length > 0 ? t.failures(errors) : t.success(out);
  },
  t.identity,
);

/**
 * A device schema (netpie reference §7.1): which fields a write may hold, of which type and range, and which are
 * computed by expressions. `additionalProperties` is true when absent, as in JSON Schema.
 */
export const ShadowSchema = closed({ properties: Properties }, { additionalProperties: t.boolean, description: t.string });
export type ShadowSchema = t.TypeOf<typeof ShadowSchema>;

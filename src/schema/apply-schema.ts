import { compileExpression, Compiled } from '../expressions/compile';
import { ExpressionError } from '../expressions/errors';
import { roundTo } from '../expressions/values';
import { Json, JsonObject, setMember } from '../core/json';
import { FieldSchema, ShadowSchema, ttlMsOf } from './codecs';
import { FieldType } from './field-type';
import { coerceTo, describe } from './coerce';
import { FieldWarning } from './warnings';

interface CompiledField {
  readonly name: string;
  readonly type?: FieldType;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly autofill: boolean;
  readonly fallback?: Json;
  readonly transform?: { readonly expr: Compiled; readonly dp?: number };
}

/** A schema with its expressions parsed, ready for many writes. */
export interface CompiledSchema {
  readonly additionalProperties: boolean;
  readonly fields: ReadonlyMap<string, CompiledField>;
  /** Fields with `store: false`: kept in the shadow, never recorded as points. */
  readonly unstored: ReadonlySet<string>;
  /** Fields with NETPIE's `operation.store.ttl`, by name, in ms: when there are any, only these are recorded. */
  readonly ttls: ReadonlyMap<string, number>;
}

/** Compiles a decoded schema; its expressions were checked by the codec, so this does not throw for stored schemas. */
export function compileSchema(schema: ShadowSchema): CompiledSchema {
  const fields = new Map<string, CompiledField>();
  const unstored = new Set<string>();
  const ttls = new Map<string, number>();
  for (const [name, f] of Object.entries(schema.properties) as [string, FieldSchema][]) {
    const transform = f.operation?.transform;
    fields.set(name, {
      name,
      type: f.type,
      minimum: f.minimum,
      maximum: f.maximum,
      autofill: f.autofill ?? false,
      fallback: f.default,
      transform: transform && { expr: compileExpression(transform.expression), dp: transform.dp },
    });
    if (f.store === false) unstored.add(name);
    const ttl = f.operation?.store?.ttl;
    if (ttl !== undefined) ttls.set(name, ttlMsOf(ttl));
  }
  return { additionalProperties: schema.additionalProperties ?? true, fields, unstored, ttls };
}

export interface SchemaOutcome {
  /** What the write stores: coerced, computed and autofilled fields, without the dropped ones. */
  data: JsonObject;
  warnings: FieldWarning[];
  /** Transform expressions evaluated (the Shadow Expression quota, netpie reference §7.2, §9). */
  expressionRuns: number;
}

/**
 * Applies a schema to one write (netpie reference §7.1-7.2): each field is converted to its type, checked against
 * minimum/maximum, dropped when a closed schema does not list it, and computed by its transform when the write
 * mentions it or it is `autofill`. `$` is the incoming data (converted), `$$` the stored shadow `previous`. A field
 * that is converted or dropped gets a warning; the rest of the write goes on. `null` (delete the field) is never
 * converted and runs no transform, autofill or not. A transform that gives `null` leaves the field out of the write.
 */
export function applySchema(schema: CompiledSchema, incoming: JsonObject, previous: JsonObject): SchemaOutcome {
  const warnings: FieldWarning[] = [];
  const warn = (field: string, action: FieldWarning['action'], reason: FieldWarning['reason'], message: string) =>
    warnings.push({ field, action, reason, message });
  const out: JsonObject = {};
  const incomingView: JsonObject = {};
  const mentioned = new Set<string>();
  const deleted = new Set<string>();

  /** The value if it is within the field's range, else a warning and undefined. */
  const inRange = (field: CompiledField, value: Json): Json | undefined => {
    if (typeof value !== 'number') return value;
    if (field.minimum !== undefined && value < field.minimum) {
      warn(field.name, 'dropped', 'range', `${value} is below the minimum ${field.minimum}`);
      return undefined;
    }
    if (field.maximum !== undefined && value > field.maximum) {
      warn(field.name, 'dropped', 'range', `${value} is above the maximum ${field.maximum}`);
      return undefined;
    }
    return value;
  };

  /** The value converted to the field's type (with a warning when it changed), or undefined when it cannot be. */
  const converted = (field: CompiledField, value: Json, what: string): Json | undefined => {
    if (field.type === undefined) return value;
    const r = coerceTo(field.type, value);
    if (!r.ok) {
      warn(field.name, 'dropped', 'type', `${what}${r.why}`);
      return undefined;
    }
    if (r.coerced) warn(field.name, 'coerced', 'type', `${what}${describe(value)} stored as ${describe(r.value)}`);
    return r.value;
  };

  for (const [name, value] of Object.entries(incoming)) {
    const field = schema.fields.get(name);
    if (!field) {
      setMember(incomingView, name, value);
      if (schema.additionalProperties) setMember(out, name, value);
      else warn(name, 'dropped', 'additionalProperties', 'not a property of the schema, which has "additionalProperties": false');
      continue;
    }
    if (value === null) {
      setMember(incomingView, name, null);
      setMember(out, name, null);
      deleted.add(name);
      continue;
    }
    if (field.transform) {
      mentioned.add(name);
      // Holds the field's place in the write; the transform below fills it or removes it.
      setMember(out, name, null);
    }
    const value2 = converted(field, value, '');
    if (value2 === undefined) continue;
    setMember(incomingView, name, value2);
    if (field.transform) continue;
    const checked = inRange(field, value2);
    if (checked !== undefined) setMember(out, name, checked);
  }

  let expressionRuns = 0;
  const variables = new Map<string, Json>([['$', incomingView], ['$$', previousView(schema, previous)]]);
  for (const field of schema.fields.values()) {
    if (!field.transform || deleted.has(field.name) || !(mentioned.has(field.name) || field.autofill)) continue;
    expressionRuns++;
    const value = runTransform(field, variables, warn);
    const typed = value === undefined || value === null ? value : converted(field, value, 'expression result ');
    const rounded = typeof typed === 'number' && field.transform.dp !== undefined ? roundTo(typed, field.transform.dp) : typed;
    const checked = rounded === undefined || rounded === null ? undefined : inRange(field, rounded);
    if (checked === undefined) delete out[field.name];
    else setMember(out, field.name, checked);
  }
  return { data: out, warnings, expressionRuns };
}

function runTransform(field: CompiledField, variables: ReadonlyMap<string, Json>, warn: (f: string, a: 'dropped', r: 'expression', m: string) => void): Json | undefined {
  try {
    return field.transform!.expr.run(variables);
  } catch (err) {
    if (!(err instanceof ExpressionError)) throw err;
    warn(field.name, 'dropped', 'expression', `expression failed: ${err.message}`);
    return undefined;
  }
}

/** The stored shadow as `$$` reads it: a field the shadow lacks reads as its schema `default`, if it has one. */
function previousView(schema: CompiledSchema, previous: JsonObject): JsonObject {
  let view: JsonObject | undefined;
  for (const field of schema.fields.values()) {
    if (field.fallback === undefined || Object.hasOwn(previous, field.name)) continue;
    view ??= { ...previous };
    setMember(view, field.name, field.fallback);
  }
  return view ?? previous;
}

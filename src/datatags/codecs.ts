import * as t from 'io-ts';
import { closed, wellFormed } from '../core/codecs';
import { Expr } from '../expressions/ast';
import { expressionProblem, compileExpression } from '../expressions/compile';
import { FieldTtl, withProblem } from '../schema/codecs';

/** Datatag limits, named in docs/limits-and-errors.md ("Limits"). */
export const DATATAG_LIMITS = {
  /** Datatags of one device, or of one group default. */
  maxTags: 100,
  /** Characters of `name`, `description` and `unit`. */
  maxTextLength: 256,
} as const;

/**
 * A shadow path: field names (`[A-Za-z0-9_]`, the names a schema allows) joined by dots, `env.temp`. Also the rule
 * of `attr`, which becomes the `attr` tag of the points (the same characters as the paths points are named by today).
 */
const PATH = /^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/;
const pathCodec = (name: string) =>
  withProblem(t.string, name, (s) => (s.length <= 128 && PATH.test(s) ? undefined : 'expected 1-128 characters: names of A-Z a-z 0-9 _ joined by dots'));
export const DataPath = pathCodec('data path');
export const Attr = pathCodec('attr');

/**
 * What a tag records its value as (netpie reference §7.3 "Data Type"). The time-series store holds numbers only, so a
 * string tag could record nothing: it is refused rather than accepted and silent.
 */
const DatatagType = new t.Type<'number' | 'boolean', string, unknown>(
  'datatag type',
  (u): u is 'number' | 'boolean' => u === 'number' || u === 'boolean',
  (u, c) => {
    if (u === 'number' || u === 'boolean') return t.success(u);
    if (u === 'string') return t.failure(u, c, 'a "string" tag cannot be recorded: the data store keeps numbers; use "number" or "boolean"');
    return t.failure(u, c, 'expected "number" or "boolean"');
  },
  t.identity,
);

/** The only variable a datatag expression sees: `$`, read only as `$.value` (netpie reference §7.3). */
const EXPRESSION_VARIABLES: ReadonlySet<string> = new Set(['$']);

/** Where `$` is used other than as `$.value`, or undefined. */
function valueOnlyProblem(expr: Expr, parent?: Expr): string | undefined {
  if (expr.kind === 'variable') {
    return parent?.kind === 'member' && parent.name === 'value' ? undefined : 'a datatag expression may read only $.value';
  }
  for (const child of Object.values(expr)) {
    const items = Array.isArray(child) ? child : [child];
    for (const item of items) {
      if (item && typeof item === 'object' && 'kind' in item) {
        const problem = valueOnlyProblem(item as Expr, expr);
        if (problem) return problem;
      }
    }
  }
  return undefined;
}

/** An expression over `$.value` and constants (netpie reference §7.3), checked on the way in. */
const DatatagExpression = withProblem(t.string, 'expression', (s) => {
  if (s.trim() === '') return 'expected an expression';
  return expressionProblem(s, EXPRESSION_VARIABLES) ?? valueOnlyProblem(compileExpression(s).expr);
});

const text = withProblem(wellFormed(t.string), 'text', (s) =>
  (s.length <= DATATAG_LIMITS.maxTextLength ? undefined : `longer than ${DATATAG_LIMITS.maxTextLength} characters`));

/** One datatag as an admin sends it (netpie reference §7.3); `name` defaults to the path, `enabled` to true. */
export const DatatagRequest = closed(
  { path: DataPath, type: DatatagType, attr: Attr, ttl: FieldTtl },
  { name: text, description: text, unit: text, expression: DatatagExpression, enabled: t.boolean },
);
export type DatatagRequest = t.TypeOf<typeof DatatagRequest>;

/** A datatag as stored and answered: every default filled in. */
export type Datatag = DatatagRequest & { name: string; enabled: boolean };

export const DatatagList = withProblem(t.array(DatatagRequest), 'datatags', (tags) => {
  if (tags.length > DATATAG_LIMITS.maxTags) return `more than ${DATATAG_LIMITS.maxTags} datatags`;
  const seen = new Set<string>();
  for (const tag of tags) {
    if (seen.has(tag.attr)) return `attr "${tag.attr}" is given twice: each tag needs its own`;
    seen.add(tag.attr);
  }
  return undefined;
});

/** The body of `PATCH .../datatags/{attr}`: the enable toggle. */
export const DatatagToggle = closed({ enabled: t.boolean });

/** The body of `PUT .../datatags/{attr}/points/{timestamp}`: the point's new value, cast to the tag's type. */
export const PointValue = closed({ value: t.union([t.number, t.boolean, t.string]) });

/** Fills in the defaults. */
export const datatagOf = (request: DatatagRequest): Datatag => ({ ...request, name: request.name ?? request.path, enabled: request.enabled ?? true });

/** A stored datatag, decoded again when read (the stores keep the JSON). */
export const StoredDatatag = closed(
  { path: DataPath, type: DatatagType, attr: Attr, ttl: FieldTtl, name: t.string, enabled: t.boolean },
  { description: t.string, unit: t.string, expression: t.string },
);

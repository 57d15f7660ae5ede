import { isJsonObject, Json, JsonObject } from '../core/json';
import { compileExpression, Compiled } from '../expressions/compile';
import { ExpressionError } from '../expressions/errors';
import { CompiledSchema } from '../schema/apply-schema';
import { ttlMsOf } from '../schema/codecs';
import { coerceTo, describe } from '../schema/coerce';
import { FieldWarning } from '../schema/warnings';
import { Point } from '../timeseries/point';
import { expiryOf } from '../timeseries/retention';
import { FIELD_TAG, pointsOfWrite } from '../timeseries/shadow-points';
import { Datatag } from './codecs';

/** A datatag ready for many writes: its path split, its ttl in ms, its expression parsed. */
export interface CompiledDatatag {
  readonly attr: string;
  readonly path: string;
  readonly segments: readonly string[];
  readonly type: Datatag['type'];
  readonly ttlMs: number;
  readonly expression?: Compiled;
  readonly enabled: boolean;
}

export const compileDatatags = (tags: readonly Datatag[]): CompiledDatatag[] =>
  tags.map((tag) => ({
    attr: tag.attr,
    path: tag.path,
    segments: tag.path.split('.'),
    type: tag.type,
    ttlMs: ttlMsOf(tag.ttl),
    expression: tag.expression === undefined ? undefined : compileExpression(tag.expression),
    enabled: tag.enabled,
  }));

/** What decides a device's points, resolved before its write is planned (the plan runs inside the write queue). */
export interface Recording {
  /** The device's datatags (its own, else its group's default); undefined or empty: the schema's rule. */
  readonly datatags?: readonly CompiledDatatag[];
  readonly schema?: CompiledSchema;
  /** The project's retention in ms (timeseries/retention.ts); undefined: kept until deleted. */
  readonly retentionMs?: number;
}

export interface Recorded {
  points: Point[];
  /** Datatags that recorded nothing for a value they could not cast or compute (action `unrecorded`). */
  warnings: FieldWarning[];
}

/**
 * The points of one write's `written` data (after the schema), by the first rule that applies (issue 23 §1, §2):
 * 1. datatags: exactly the enabled tags whose path the write holds, each value cast to the tag's type (through its
 *    expression) under the tag's attr, kept for the tag's ttl; a value that cannot be cast records nothing;
 * 2. a schema with NETPIE's `operation.store.ttl`: exactly the fields that have one, each kept for its ttl;
 * 3. otherwise every numeric or boolean leaf, but the schema's `store: false` fields, kept for the project's retention.
 * `tagsByKey` lets the points of one series share one tags object across the items of a batch (shadow-points.ts).
 */
export function recordedPoints(deviceid: string, recording: Recording, written: JsonObject, ts: number, tagsByKey = new Map<string, Point['tags']>()): Recorded {
  const { datatags, schema, retentionMs } = recording;
  if (datatags && datatags.length > 0) return datatagPoints(deviceid, datatags, written, ts, retentionMs, tagsByKey);
  const expiring = (points: Point[], ttlMs: number | undefined): Point[] => {
    const expiresAt = expiryOf(ts, ttlMs, retentionMs);
    return expiresAt === undefined ? points : points.map((p) => ({ ...p, expiresAt }));
  };
  if (schema && schema.ttls.size > 0) {
    const points: Point[] = [];
    for (const [name, ttlMs] of schema.ttls) {
      if (!Object.hasOwn(written, name)) continue;
      points.push(...expiring(pointsOfWrite(deviceid, { [name]: written[name] } as JsonObject, ts, tagsByKey), ttlMs));
    }
    return { points, warnings: [] };
  }
  const kept = schema && schema.unstored.size > 0
    ? Object.fromEntries(Object.entries(written).filter(([name]) => !schema.unstored.has(name)))
    : written;
  return { points: expiring(pointsOfWrite(deviceid, kept, ts, tagsByKey), undefined), warnings: [] };
}

function datatagPoints(
  deviceid: string, tags: readonly CompiledDatatag[], written: JsonObject, ts: number, retentionMs: number | undefined,
  tagsByKey: Map<string, Point['tags']>,
): Recorded {
  const points: Point[] = [];
  const warnings: FieldWarning[] = [];
  for (const tag of tags) {
    if (!tag.enabled) continue;
    const given = valueAt(written, tag.segments);
    if (given === undefined || given === null) continue;
    const value = tagValue(tag, given);
    if (typeof value !== 'number') {
      warnings.push({ field: tag.path, action: 'unrecorded', reason: value.reason, message: `datatag "${tag.attr}": ${value.why}` });
      continue;
    }
    let seriesTags = tagsByKey.get(tag.attr);
    if (!seriesTags) tagsByKey.set(tag.attr, (seriesTags = { [FIELD_TAG]: tag.attr }));
    const expiresAt = expiryOf(ts, tag.ttlMs, retentionMs);
    points.push({ metric: deviceid, tags: seriesTags, timestamp: ts, value, ...(expiresAt === undefined ? {} : { expiresAt }) });
  }
  return { points, warnings };
}

/** The value at a dotted path of the written data; undefined when the write did not hold it. */
function valueAt(data: JsonObject, segments: readonly string[]): Json | undefined {
  let at: Json = data;
  for (const segment of segments) {
    if (!isJsonObject(at) || !Object.hasOwn(at, segment)) return undefined;
    at = at[segment];
  }
  return at;
}

type Unrecorded = { reason: 'type' | 'expression'; why: string };

/** The number a tag records for `given` (booleans as 1/0), or why it records none. */
function tagValue(tag: CompiledDatatag, given: Json): number | Unrecorded {
  const cast = coerceTo(tag.type, given);
  if (!cast.ok) return { reason: 'type', why: cast.why };
  let value = cast.value;
  if (tag.expression) {
    try {
      const result = tag.expression.run(new Map([['$', { value }]]));
      const recast = coerceTo(tag.type, result);
      if (!recast.ok) return { reason: 'expression', why: `expression result ${recast.why}` };
      value = recast.value;
    } catch (err) {
      if (!(err instanceof ExpressionError)) throw err;
      return { reason: 'expression', why: `expression failed: ${err.message}` };
    }
  }
  if (typeof value === 'boolean') return value ? 1 : 0;
  // coerceTo gives finite numbers only; kept as a guard, since a NaN point would block the outbox.
  return typeof value === 'number' && Number.isFinite(value) ? value : { reason: 'type', why: `${describe(value)} is not a finite number` };
}

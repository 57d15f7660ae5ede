import * as t from 'io-ts';
import { closed } from '../core/codecs';
import { isJsonObject, JsonObject } from '../core/json';
import { SHADOW_LIMITS } from './limits';

/** Why a JSON value cannot be shadow data, or undefined when it can. */
function shadowDataProblem(value: unknown, depth: number, path: string): string | undefined {
  const container = typeof value === 'object' && value !== null;
  if (container && depth > SHADOW_LIMITS.maxDepth) return `${path}: nesting deeper than ${SHADOW_LIMITS.maxDepth} levels`;
  if (typeof value === 'string') return value.isWellFormed() ? undefined : `${path}: string is not valid Unicode`;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${path}: number out of range`;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = shadowDataProblem(value[i], depth + 1, `${path}.${i}`);
      if (p) return p;
    }
    return undefined;
  }
  if (isJsonObject(value)) {
    for (const [key, member] of Object.entries(value)) {
      if (key.length === 0 || key.length > SHADOW_LIMITS.maxKeyLength || !key.isWellFormed()) {
        return `${path}: member name must be 1-${SHADOW_LIMITS.maxKeyLength} characters of valid Unicode`;
      }
      const p = shadowDataProblem(member, depth + 1, `${path}.${key}`);
      if (p) return p;
    }
  }
  return undefined;
}

/** Shadow data (spec 2.2): a JSON object of named fields, within the limits of limits.ts. */
export const ShadowData = new t.Type<JsonObject, JsonObject, unknown>(
  'ShadowData',
  isJsonObject,
  (u, c) => {
    if (!isJsonObject(u)) return t.failure(u, c, 'expected a JSON object of fields');
    const problem = shadowDataProblem(u, 1, 'data');
    return problem ? t.failure(u, c, problem) : t.success(u);
  },
  t.identity,
);

/** A time in ms: relative to now below the threshold of spec 4.6, absolute above it. */
export const WriteTime = new t.Type<number, number, unknown>(
  'WriteTime',
  (u): u is number => typeof u === 'number',
  (u, c) =>
    typeof u === 'number' && Number.isSafeInteger(u) ? t.success(u) : t.failure(u, c, 'expected an integer number of milliseconds'),
  t.identity,
);

/** A revision: a whole number from 0 (a shadow never written) up. */
export const Rev = new t.Type<number, number, unknown>(
  'Rev',
  (u): u is number => typeof u === 'number',
  (u, c) => (typeof u === 'number' && Number.isSafeInteger(u) && u >= 0 ? t.success(u) : t.failure(u, c, 'expected a whole number from 0 up')),
  t.identity,
);

/**
 * `rev`: write only if the shadow is at this revision (issue 25 §1), as If-Match does on REST; over MQTT, where
 * there are no headers, the only way to say it. 0 means a shadow never written.
 */
const WriteOptions = { merged: t.boolean, store: t.boolean, trigger: t.boolean, rev: Rev };

/** Body of PUT/POST /shadow/data (spec 4.5 and netpie reference §6.3). */
export const ShadowWriteRequest = closed({ data: ShadowData }, { timestamp: WriteTime, ...WriteOptions });
export type ShadowWriteRequest = t.TypeOf<typeof ShadowWriteRequest>;

/** One batch item (spec 2.4): `ts` or its other name `timestamp`, exactly one of them. */
export const BatchItem = closed({ data: ShadowData }, { ts: WriteTime, timestamp: WriteTime });
export type BatchItem = t.TypeOf<typeof BatchItem>;

export const AckId = t.union([t.string, t.number]);

/** The batch envelope (spec 2.5); items are decoded one by one so an error can name its index. */
export const BatchEnvelope = closed({ batch: t.UnknownArray }, { ackid: AckId, ...WriteOptions });
export type BatchEnvelope = t.TypeOf<typeof BatchEnvelope>;

import * as t from 'io-ts';
import { isLeft } from 'fp-ts/Either';
import { AppError, ErrorCode } from './errors';

/** Turns io-ts errors into short lines such as `batch.3.ts: expected an integer (got "x")`. */
export function describeErrors(errors: t.Errors): string[] {
  const lines = new Set<string>();
  for (const e of errors) {
    // Members of unions and intersections add their index to the context; they are not part of the path.
    const path = e.context
      .filter((c, i) => i > 0 && c.key !== '' && !isCombinator(e.context[i - 1].type))
      .map((c) => c.key)
      .join('.');
    const last = e.context[e.context.length - 1];
    const expected = e.message ?? `expected ${last?.type.name ?? 'a valid value'}`;
    lines.add(`${path || 'body'}: ${expected} (got ${preview(e.value)})`);
  }
  return [...lines];
}

function isCombinator(type: t.Decoder<unknown, unknown>): boolean {
  const tag = (type as { _tag?: string })._tag;
  return tag === 'UnionType' || tag === 'IntersectionType';
}

/** A short look at a bad value; never walks a huge or deeply nested value. */
function preview(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'object' && value !== null) return 'an object';
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Decode at the edge: returns the typed value or throws a 400 AppError that says what is wrong. */
export function decodeOrThrow<A, O>(codec: t.Type<A, O, unknown>, value: unknown, code: ErrorCode = 'INVALID_BODY'): A {
  const result = codec.decode(value);
  if (isLeft(result)) {
    const lines = describeErrors(result.left);
    throw new AppError(code, lines.slice(0, 5).join('; '), { errors: lines.slice(0, 20) });
  }
  return result.right;
}

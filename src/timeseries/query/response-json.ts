import { finiteOrNull, isStream } from './format-result';
import { ARRAY, NULL, PointStream } from './point-stream';
import { AnswerMetric, AnswerResult, QueryAnswer, ValuePoint } from './query-response';
import { PACE_EVERY, QueryRun } from './query-run';

/**
 * The JSON text of an answer, printed piece by piece (issue 10 §1: a large answer is streamed, never held whole as
 * one string or as millions of small arrays). The text is exactly JSON.stringify(materializeAnswer(answer)): members
 * in the objects' own order, numbers as JSON prints them, NaN and infinities as null.
 */
export function* answerJson(answer: QueryAnswer, chunkChars = 16 * 1024): Generator<string> {
  let buffer = '';
  for (const piece of objectJson(answer, { queries: (qs) => arrayJson(qs as readonly AnswerMetric[], metricJson) })) {
    buffer += piece;
    if (buffer.length >= chunkChars) {
      yield buffer;
      buffer = '';
    }
  }
  if (buffer !== '') yield buffer;
}

/** The exact size of the answer's JSON in bytes, printing it once without keeping it; paced by `run`. */
export async function answerBytes(answer: QueryAnswer, run: QueryRun): Promise<number> {
  let bytes = 0;
  for (const chunk of answerJson(answer)) {
    bytes += Buffer.byteLength(chunk, 'utf8');
    await run.pace();
  }
  return bytes;
}

/** The longest a number prints: `-1.2345678901234567e-308`. */
const MAX_NUMBER_CHARS = 24;
/** The longest a timestamp prints: `-8640000000000000`. */
const MAX_TIME_CHARS = 17;

/**
 * An upper bound of answerBytes, without printing a single value: when it is within the budget, the exact size is
 * not needed. Members other than values are printed (they are small); each point counts as its longest form.
 */
export function answerBytesAtMost(answer: QueryAnswer): number {
  let bytes = 64;
  for (const metric of answer.queries) {
    bytes += Buffer.byteLength(JSON.stringify({ ...metric, results: [] }), 'utf8');
    for (const result of metric.results) {
      bytes += Buffer.byteLength(JSON.stringify({ ...result, values: [] }), 'utf8') + 1;
      const { points, extraNumbers } = isStream(result.values) ? streamShape(result.values) : arrayShape(result.values);
      bytes += points * (MAX_TIME_CHARS + MAX_NUMBER_CHARS + 4) + extraNumbers * (MAX_NUMBER_CHARS + 1);
    }
  }
  return bytes;
}

function streamShape(s: PointStream): { points: number; extraNumbers: number } {
  let extraNumbers = 0;
  for (const a of s.arrays?.values() ?? []) extraNumbers += a.length;
  return { points: s.ts.length, extraNumbers };
}

function arrayShape(values: readonly ValuePoint[]): { points: number; extraNumbers: number } {
  let extraNumbers = 0;
  for (const p of values) extraNumbers += Math.max(0, p.length - 2);
  return { points: values.length, extraNumbers };
}

type Special = Record<string, (value: unknown) => Iterable<string>>;

/** An object's members in their own order, as JSON.stringify prints them; `special` members print themselves. */
function* objectJson(object: object, special: Special): Generator<string> {
  yield '{';
  let first = true;
  for (const [key, value] of Object.entries(object)) {
    // JSON.stringify leaves these members out.
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    yield `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    const print = special[key];
    if (print === undefined) yield JSON.stringify(value);
    else yield* print(value);
  }
  yield '}';
}

function* arrayJson<T>(items: readonly T[], print: (item: T) => Iterable<string>): Generator<string> {
  yield '[';
  for (let i = 0; i < items.length; i++) {
    if (i > 0) yield ',';
    yield* print(items[i]);
  }
  yield ']';
}

const metricJson = (metric: AnswerMetric) =>
  objectJson(metric, { results: (rs) => arrayJson(rs as readonly AnswerResult[], resultJson) });

const resultJson = (result: AnswerResult) =>
  objectJson(result, { values: (vs) => (isStream(vs as AnswerResult['values']) ? streamJson(vs as PointStream) : pointsJson(vs as readonly ValuePoint[])) });

/** `[[t,v],…]` from typed arrays, PACE_EVERY points per piece. */
function* streamJson(s: PointStream): Generator<string> {
  const n = s.ts.length;
  yield '[';
  for (let from = 0; from < n; from += PACE_EVERY) {
    const to = Math.min(n, from + PACE_EVERY);
    let piece = '';
    for (let i = from; i < to; i++) {
      const kind = s.kinds === undefined ? 0 : s.kinds[i];
      piece += i > 0 ? ',[' : '[';
      piece += String(s.ts[i]);
      if (kind === NULL) piece += ',null';
      else if (kind === ARRAY) for (const v of s.arrays?.get(i) ?? []) piece += `,${printNumber(v)}`;
      else piece += `,${printNumber(s.vals[i])}`;
      piece += ']';
    }
    yield piece;
  }
  yield ']';
}

function* pointsJson(values: readonly ValuePoint[]): Generator<string> {
  yield '[';
  for (let from = 0; from < values.length; from += PACE_EVERY) {
    const piece = JSON.stringify(values.slice(from, from + PACE_EVERY));
    yield `${from > 0 ? ',' : ''}${piece.slice(1, -1)}`;
  }
  yield ']';
}

const printNumber = (v: number): string => {
  const finite = finiteOrNull(v);
  return finite === null ? 'null' : String(finite);
};

import { ARRAY, NULL, PointStream } from './point-stream';
import { AnswerResult, GroupByEntry, QueryAnswer, QueryResponse, ValuePoint } from './query-response';

/**
 * One result object of the response (reference §5.1): name, group_by (when any), tags (unless excluded), values;
 * the values stay a stream until the answer is printed (response-json.ts) or materialized.
 */
export function formatResult(
  name: string,
  entries: readonly GroupByEntry[],
  tags: ReadonlyMap<string, readonly string[]>,
  excludeTags: boolean,
  stream: PointStream,
): AnswerResult {
  return {
    name,
    ...(entries.length > 0 ? { group_by: entries } : {}),
    ...(excludeTags ? {} : { tags: Object.fromEntries(tags) }),
    values: stream,
  };
}

/** The answer with every result's values as arrays of points: what JSON.parse of the printed answer gives. */
export function materializeAnswer(answer: QueryAnswer): QueryResponse {
  return {
    queries: answer.queries.map((q) => ({
      ...q,
      results: q.results.map((r) => ({ ...r, values: isStream(r.values) ? formatValues(r.values) : r.values })),
    })),
  };
}

export const isStream = (values: AnswerResult['values']): values is PointStream => !Array.isArray(values);

/** Points a stream adds to an answer: one per point, an array point one per number it holds. */
export function answerPointCount(s: PointStream): number {
  let n = s.ts.length;
  if (s.arrays !== undefined) for (const a of s.arrays.values()) n += Math.max(0, a.length - 1);
  return n;
}

export function formatValues(s: PointStream): ValuePoint[] {
  const n = s.ts.length;
  const values: ValuePoint[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const kind = s.kinds === undefined ? 0 : s.kinds[i];
    if (kind === NULL) values[i] = [s.ts[i], null];
    else if (kind === ARRAY) values[i] = [s.ts[i], ...(s.arrays?.get(i) ?? []).map(finiteOrNull)];
    else values[i] = [s.ts[i], finiteOrNull(s.vals[i])];
  }
  return values;
}

/** NaN and infinities print as null (fork >= 1.2.25; upstream answers 500). */
export const finiteOrNull = (v: number): number | null => (Number.isFinite(v) ? v : null);

/**
 * The union of the tags of a group's series, each value once; names and values sorted in Java string order
 * (UTF-16 code units, which is JS's default sort). The query's tag filter does not restrict what is shown.
 */
export function unionTags(series: readonly { readonly tags: Readonly<Record<string, string>> }[]): Map<string, string[]> {
  const union = new Map<string, Set<string>>();
  for (const s of series) {
    for (const [name, value] of Object.entries(s.tags)) {
      let values = union.get(name);
      if (values === undefined) union.set(name, (values = new Set()));
      values.add(value);
    }
  }
  return new Map([...union.keys()].sort().map((name) => [name, [...union.get(name)!].sort()]));
}

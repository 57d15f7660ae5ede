import * as t from 'io-ts';

/**
 * KairosDB's response bodies (reference §5, §8), decoded once where they enter the service. Only what the service
 * reads is checked; io-ts' `t.type` lets unknown members through, so a newer KairosDB adding one still decodes.
 */

/** `{"errors": [...]}` of a 400 or 500 (reference §1); a Java exception without message gives `null`. */
export const ErrorsBody = t.type({ errors: t.array(t.union([t.string, t.null])) });

const TagMap = t.record(t.string, t.array(t.string));

type ValuePoint = [number, number | null];

const isValuePoint = (u: unknown): u is ValuePoint =>
  Array.isArray(u) && u.length === 2 && typeof u[0] === 'number' && (typeof u[1] === 'number' || u[1] === null);

/**
 * `[[t, v], ...]`, v null for the null points of gaps. Checked in one loop rather than with t.array(t.tuple(...)):
 * an answer may hold millions of points, and this costs a few ms per million where the combinators cost 300.
 */
const ValuePoints = new t.Type<ValuePoint[], ValuePoint[], unknown>(
  'ValuePoints',
  (u): u is ValuePoint[] => Array.isArray(u) && u.every(isValuePoint),
  (u, c) => {
    if (!Array.isArray(u)) return t.failure(u, c, 'expected an array of points');
    for (let i = 0; i < u.length; i++) {
      if (!isValuePoint(u[i])) return t.failure(u[i], c, `point ${i}: expected [timestamp, number or null]`);
    }
    return t.success(u as ValuePoint[]);
  },
  t.identity,
);

const NumberGroup = t.type({ group_number: t.number });

/** One entry of `group_by` (reference §5.1). */
const GroupByEntryCodec = t.union([
  t.type({ name: t.literal('type'), type: t.string }),
  t.type({ name: t.literal('tag'), tags: t.array(t.string), group: t.record(t.string, t.string) }),
  t.type({
    name: t.literal('time'),
    range_size: t.type({ value: t.number, unit: t.string }),
    group_count: t.number,
    group: NumberGroup,
  }),
  t.type({ name: t.literal('value'), range_size: t.number, group: NumberGroup }),
  t.type({ name: t.literal('bin'), bins: t.array(t.number), group: t.type({ bin_number: t.number }) }),
]);

const QueryResultCodec = t.intersection([
  t.type({ name: t.string, values: ValuePoints }),
  t.partial({ group_by: t.array(GroupByEntryCodec), tags: TagMap }),
]);

/** POST /api/v1/datapoints/query. Upstream 1.2.1 has no keys_scanned (fork 1.2.28 has). */
export const QueryResponseBody = t.type({
  queries: t.array(
    t.intersection([
      t.type({ sample_size: t.number, results: t.array(QueryResultCodec) }),
      t.partial({ keys_scanned: t.number }),
    ]),
  ),
});
export type QueryResponseBody = t.TypeOf<typeof QueryResponseBody>;

/** POST /api/v1/datapoints/query/tags (reference §5.2). */
export const TagsResponseBody = t.type({
  queries: t.array(t.type({ results: t.array(t.type({ name: t.string, tags: TagMap })) })),
});
export type TagsResponseBody = t.TypeOf<typeof TagsResponseBody>;

/** GET /api/v1/metricnames (reference §8). */
export const NamesBody = t.type({ results: t.array(t.string) });

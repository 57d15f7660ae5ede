import type { QueryResponse } from '../src/timeseries/query';

/** The fields of the benchmark's device: the store holds one series per field (tag `attr`). */
export const FIELDS = ['a', 'b', 'c'];

const RAW_LIMIT = 1000;

export interface QueryShape {
  label: string;
  /** A "simple aggregation" of issue 3's target (>= 5M points scanned/s). */
  simple: boolean;
  /** The `metrics[]` entry for the device's metric. */
  metric(name: string): Record<string, unknown>;
  /** Throws unless the answer is what this query must give over `stored` points. */
  check(answer: QueryResponse, stored: number): void;
}

const avgPerMinute = { name: 'avg', sampling: { value: 1, unit: 'minutes' } };

function expect(condition: boolean, shape: string, what: string, answer: QueryResponse): void {
  if (!condition) {
    const q = answer.queries[0];
    throw new Error(`${shape}: expected ${what}; got sample_size ${q?.sample_size}, ${q?.results.length} results`);
  }
}

/** Reads every stored point: sample_size must be all of them, in `results` groups. */
const scansAll = (label: string, results: number) => (answer: QueryResponse, stored: number) => {
  expect(answer.queries[0]?.sample_size === stored, label, `sample_size ${stored}`, answer);
  expect(answer.queries[0].results.length === results, label, `${results} results`, answer);
};

/** The four query shapes of issue 3's "Done when", over one device's three fields. */
export const QUERY_SHAPES: QueryShape[] = [
  {
    label: 'avg 1 min',
    simple: true,
    metric: (name) => ({ name, aggregators: [avgPerMinute] }),
    check: scansAll('avg 1 min', 1),
  },
  {
    label: 'group_by attr, avg 1 min',
    simple: true,
    metric: (name) => ({ name, group_by: [{ name: 'tag', tags: ['attr'] }], aggregators: [avgPerMinute] }),
    check: scansAll('group_by attr', FIELDS.length),
  },
  {
    label: 'percentile 0.9, 1 h',
    simple: false,
    metric: (name) => ({ name, aggregators: [{ name: 'percentile', percentile: 0.9, sampling: { value: 1, unit: 'hours' } }] }),
    check: scansAll('percentile', 1),
  },
  {
    label: `raw, limit ${RAW_LIMIT}`,
    simple: false,
    metric: (name) => ({ name, limit: RAW_LIMIT }),
    // KairosDB cuts `limit` per series per 3-week row first (reference §4.2), so sample_size is a few thousand.
    check: (answer) => {
      const values = answer.queries[0]?.results[0]?.values.length;
      expect(values === RAW_LIMIT, `raw, limit ${RAW_LIMIT}`, `${RAW_LIMIT} values`, answer);
    },
  },
];

import { expect } from 'chai';
import { KairosQueryError, QueryResponse, runQuery, ScriptSandbox, validateQuery } from '../../src/timeseries/query';
import { MemorySeriesSource } from './memory-series-source';

/** A `now` far after every fixture, so queries without an end see all their points. */
export const LATER = Date.UTC(2030, 0, 1);

/** A sandbox for tests that do not run scripts: any call is a test bug. */
export const noScripts: ScriptSandbox = {
  mapPoints: () => Promise.reject(new Error('no script expected')),
  filterPoints: () => Promise.reject(new Error('no script expected')),
  reduceRanges: () => Promise.reject(new Error('no script expected')),
};

export async function query(
  source: MemorySeriesSource, body: unknown, options: { now?: number; sandbox?: ScriptSandbox } = {},
): Promise<QueryResponse> {
  return runQuery(body, { source, writer: source, sandbox: options.sandbox ?? noScripts, now: options.now ?? LATER });
}

/** The values of result `r` of metric `q` of a response. */
export const valuesOf = (response: QueryResponse, q = 0, r = 0) => response.queries[q].results[r].values;

/** The messages a body is refused with (fails the test if it is accepted). */
export function errorsOf(body: unknown, now = LATER): readonly string[] {
  try {
    validateQuery(body, now);
  } catch (err) {
    expect(err).to.be.instanceOf(KairosQueryError);
    return (err as KairosQueryError).errors;
  }
  expect.fail(`expected ${JSON.stringify(body)} to be refused`);
}

/** The messages a query is refused with while running (after validation). */
export async function runErrorsOf(source: MemorySeriesSource, body: unknown, sandbox?: ScriptSandbox): Promise<readonly string[]> {
  try {
    await query(source, body, { sandbox });
  } catch (err) {
    expect(err).to.be.instanceOf(KairosQueryError);
    return (err as KairosQueryError).errors;
  }
  expect.fail('expected the query to fail');
}

/** One point per step from `from` (inclusive) to `to` (exclusive), each with value `value` (or its index + 1). */
export function everyStep(from: number, to: number, step: number, value?: number): [number, number][] {
  const points: [number, number][] = [];
  for (let t = from, i = 0; t < to; t += step, i++) points.push([t, value ?? i + 1]);
  return points;
}

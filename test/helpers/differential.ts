import { expect } from 'chai';
import { Point } from '../../src/timeseries/point';
import { KairosQueryError, QueryResponse } from '../../src/timeseries/query';
import { AppError } from '../../src/core/errors';

/**
 * Data and comparison for the differential suite (test/integration/kairosdb/differential.test.ts): the same points
 * in the embedded engine and in the real KairosDB, the same queries, answers compared after normalizing what is
 * documented to differ.
 */

export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

/** Friday 2024-03-29 00:00 UTC: the dense data spans Europe/Paris' switch to summer time (Sunday 31, 01:00 UTC). */
export const DENSE_START = Date.UTC(2024, 2, 29);
export const DENSE_DAYS = 5;
/** Sunday 2023-01-01: the sparse data spans 500 days, a leap day, many 3-week rows of KairosDB's Cassandra layout. */
export const SPARSE_START = Date.UTC(2023, 0, 1);
export const SPARSE_DAYS = 500;

/** A seeded generator, so that every run writes the same points (and a failure can be replayed). */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function everyStep(metric: string, tags: Record<string, string>, from: number, to: number, stepMs: number,
  value: (i: number, t: number) => number, jitterMs = 0, seed = 1): Point[] {
  const random = lcg(seed);
  const points: Point[] = [];
  for (let t = from, i = 0; t < to; t += stepMs, i++) {
    const timestamp = t + Math.floor(random() * jitterMs);
    points.push({ metric, tags, timestamp, value: value(i, timestamp) });
  }
  return points;
}

const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;

/**
 * Four series over five days: fractional, integer (with negatives), and an hourly series whose hour marks coincide
 * with series a's every 7 hours, so that merged groups hold equal timestamps from different series. Series `a/y`
 * has the extra tag `rack` that the others lack.
 */
export function densePoints(metric: string): Point[] {
  const end = DENSE_START + DENSE_DAYS * DAY;
  return [
    ...everyStep(metric, { host: 'a', dc: 'x' }, DENSE_START, end, 7 * MINUTE, (i) => round(20 + 10 * Math.sin(i / 17), 2)),
    ...everyStep(metric, { host: 'b', dc: 'x' }, DENSE_START, end, 11 * MINUTE, (i) => (i % 37) - 5, 50_000, 7),
    ...everyStep(metric, { host: 'c', dc: 'y' }, DENSE_START, end, 13 * MINUTE, (i) => round(Math.cos(i / 9) * 3.7 + i / 100, 3), 12_345, 11),
    ...everyStep(metric, { host: 'a', dc: 'y', rack: 'r1' }, DENSE_START, end, HOUR, (i) => i % 24),
  ];
}

/** Two series, one point every 37 hours (with jitter) for 500 days. */
export function sparsePoints(metric: string): Point[] {
  const end = SPARSE_START + SPARSE_DAYS * DAY;
  return [
    ...everyStep(metric, { site: 'north' }, SPARSE_START, end, 37 * HOUR, (i) => round(100 + 50 * Math.sin(i / 30), 1), 3 * HOUR, 3),
    ...everyStep(metric, { site: 'south' }, SPARSE_START, end, 37 * HOUR, (i) => i % 10, 5 * HOUR, 5),
  ];
}

/** One point every 5 minutes over the two days before `now`, for relative ranges. */
export function recentPoints(metric: string, now: number): Point[] {
  const from = Math.floor((now - 2 * DAY) / MINUTE) * MINUTE;
  return everyStep(metric, { host: 'r' }, from, now - MINUTE, 5 * MINUTE, (i) => round(50 + 20 * Math.sin(i / 12), 2), 20_000, 13);
}

/**
 * Relative tolerance on values: KairosDB and the engine both compute in IEEE doubles, but not always in the same
 * order (sums, least squares), so the last bits may differ. Below 1e-12 in magnitude, values are compared absolutely.
 */
export const RELATIVE_TOLERANCE = 1e-9;
const ABSOLUTE_FLOOR = 1e-12;

export const close = (a: number, b: number) =>
  a === b || Math.abs(a - b) <= Math.max(RELATIVE_TOLERANCE * Math.max(Math.abs(a), Math.abs(b)), ABSOLUTE_FLOOR);

export type Outcome = { response: QueryResponse } | { error: { status: number; code: string; errors?: readonly string[] } };

export async function outcomeOf(run: () => Promise<QueryResponse>): Promise<Outcome> {
  try {
    return { response: await run() };
  } catch (err) {
    if (err instanceof KairosQueryError) return { error: { status: err.status, code: err.code, errors: err.errors } };
    if (err instanceof AppError) return { error: { status: err.status, code: err.code } };
    throw err;
  }
}

/** Tag values as sets: KairosDB sorts them for type and tag groups only (reference §5.1). */
const tagSets = (tags: Readonly<Record<string, readonly string[]>> | undefined) =>
  tags === undefined ? undefined : Object.fromEntries(Object.keys(tags).sort().map((k) => [k, [...tags[k]].sort()]));

/**
 * Asserts that two answers are the same, after the documented normalization: `keys_scanned` is left out (upstream
 * KairosDB 1.2.1 does not send it), tag values compare as sets, values within RELATIVE_TOLERANCE. Everything else
 * must be equal: sample_size, the order of results, group_by entries, timestamps, nulls.
 */
export function expectSameOutcome(embedded: Outcome, kairos: Outcome, label: string): void {
  if ('error' in embedded || 'error' in kairos) {
    expect(kairos, `${label}: KairosDB`).to.deep.equal(embedded);
    return;
  }
  const a = embedded.response.queries;
  const b = kairos.response.queries;
  expect(b.length, `${label}: metrics`).to.equal(a.length);
  a.forEach((qa, i) => {
    const qb = b[i];
    expect(qb.sample_size, `${label}: metric ${i} sample_size`).to.equal(qa.sample_size);
    expect(qb.results.length, `${label}: metric ${i} results`).to.equal(qa.results.length);
    qa.results.forEach((ra, r) => {
      const rb = qb.results[r];
      const at = `${label}: metric ${i} result ${r}`;
      expect(rb.name, at).to.equal(ra.name);
      expect(rb.group_by, `${at} group_by`).to.deep.equal(ra.group_by);
      expect(tagSets(rb.tags), `${at} tags`).to.deep.equal(tagSets(ra.tags));
      expect(rb.values.map((v) => v[0]), `${at} timestamps`).to.deep.equal(ra.values.map((v) => v[0]));
      ra.values.forEach((va, k) => {
        const vb = rb.values[k];
        expect(vb.length, `${at} value ${k} arity`).to.equal(va.length);
        for (let j = 1; j < va.length; j++) {
          const x = va[j];
          const y = vb[j];
          if (x === null || y === null) expect(y, `${at} value ${k}`).to.equal(x);
          else expect(close(x, y), `${at} value ${k} at ${va[0]}: embedded ${x}, KairosDB ${y}`).to.equal(true);
        }
      });
    });
  });
}

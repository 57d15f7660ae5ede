import { expect } from 'chai';
import {
  combineRuns,
  dropExpired,
  lastExpiry,
  mergePreferringNewer,
  Run,
  runFromPoints,
  sliceRun,
} from '../../src/adapters/sqlite-timeseries/sqlite-timeseries-runs';

const run = (pairs: [number, number][]): Run => ({
  timestamps: Float64Array.from(pairs, ([t]) => t),
  values: Float64Array.from(pairs, ([, v]) => v),
});
const pairs = (r: Run) => Array.from(r.timestamps, (t, i) => [t, r.values[i]]);

describe('sorted runs of points (last write wins)', () => {
  it('sorts a write and keeps the last of equal timestamps', () => {
    const r = runFromPoints([3, 1, 3, 2, 1], [30, 10, 31, 20, 11]);

    expect(pairs(r)).to.deep.equal([[1, 11], [2, 20], [3, 31]]);
  });

  it('combines runs in write order, a later run winning on equal timestamps', () => {
    const r = combineRuns([run([[1, 1], [5, 5]]), run([[2, 2], [5, 50]]), run([[5, 500], [6, 6]])]);

    expect(pairs(r)).to.deep.equal([[1, 1], [2, 2], [5, 500], [6, 6]]);
  });

  it('concatenates runs that follow each other, and skips empty ones', () => {
    const r = combineRuns([run([[1, 1]]), run([]), run([[2, 2], [3, 3]])]);

    expect(pairs(r)).to.deep.equal([[1, 1], [2, 2], [3, 3]]);
  });

  it('merges two runs, the newer winning on equal timestamps', () => {
    const r = mergePreferringNewer(run([[1, 1], [2, 2], [4, 4]]), run([[0, 0], [2, 20], [3, 30], [9, 90]]));

    expect(pairs(r)).to.deep.equal([[0, 0], [1, 1], [2, 20], [3, 30], [4, 4], [9, 90]]);
  });

  it('slices a run to an inclusive range', () => {
    const r = run([[1, 1], [2, 2], [3, 3], [4, 4]]);

    expect(pairs(sliceRun(r, 2, 3))).to.deep.equal([[2, 2], [3, 3]]);
    expect(pairs(sliceRun(r, 5, 9))).to.deep.equal([]);
    expect(pairs(sliceRun(r, 0, 1))).to.deep.equal([[1, 1]]);
  });
});

describe('sorted runs of points with expiries (retention, issue 23 §2)', () => {
  const expiring = (pairs: [number, number, number][]): Run => ({
    timestamps: Float64Array.from(pairs, ([t]) => t),
    values: Float64Array.from(pairs, ([, v]) => v),
    expiries: Float64Array.from(pairs, ([, , e]) => e),
  });
  const triples = (r: Run) => Array.from(r.timestamps, (t, i) => [t, r.values[i], r.expiries ? r.expiries[i] : Infinity]);

  it('carries each point\'s expiry with its value through sorting, combining and merging, the last write winning both', () => {
    const written = runFromPoints([3, 1, 3], [30, 10, 31], [300, 100, 301]);
    const combined = combineRuns([run([[1, 1], [2, 2]]), expiring([[2, 20, 200], [4, 40, 400]])]);
    const merged = mergePreferringNewer(expiring([[1, 1, 10], [5, 5, 50]]), run([[1, 2], [3, 3]]));

    expect(triples(written)).to.deep.equal([[1, 10, 100], [3, 31, 301]]);
    expect(triples(combined)).to.deep.equal([[1, 1, Infinity], [2, 20, 200], [4, 40, 400]]);
    expect(triples(merged)).to.deep.equal([[1, 2, Infinity], [3, 3, Infinity], [5, 5, 50]]);
    expect(triples(sliceRun(combined, 2, 4))).to.deep.equal([[2, 20, 200], [4, 40, 400]]);
  });

  it('drops the points expired at a time, and says when the last one expires', () => {
    const r = expiring([[1, 1, 100], [2, 2, Infinity], [3, 3, 50]]);

    expect(triples(dropExpired(r, 100))).to.deep.equal([[2, 2, Infinity]]);
    expect(dropExpired(r, 49)).to.equal(r);
    expect(lastExpiry(r)).to.equal(Infinity);
    expect(lastExpiry(expiring([[1, 1, 100], [3, 3, 50]]))).to.equal(100);
    expect(lastExpiry(run([[1, 1]]))).to.equal(Infinity);
  });
});

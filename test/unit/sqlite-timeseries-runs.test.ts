import { expect } from 'chai';
import {
  combineRuns,
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

import { expect } from 'chai';
import { AppError } from '../../src/core/errors';
import { upperKeyOf } from '../../src/shadows/history';
import { cursorOf, decodeAt, decodeRevisionsQuery, HISTORY_LIMITS } from '../../src/shadows/history-codecs';

const NOW = Date.UTC(2025, 0, 1);

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof AppError ? err.code : err;
  }
  throw new Error('expected a refusal');
};

describe('the shadow history query (shadows/history-codecs.ts)', () => {
  it('reads ?at= as epoch ms, or as an offset back from now when negative', () => {
    expect(decodeAt('1700000000000', NOW)).to.equal(1700000000000);
    expect(decodeAt('-3600000', NOW)).to.equal(NOW - 3600000);
    expect(decodeAt('0', NOW)).to.equal(0);
  });

  it('defaults a page to every revision, newest first, 20 at a time', () => {
    expect(decodeRevisionsQuery({}, NOW)).to.deep.equal({ from: 0, to: Number.MAX_SAFE_INTEGER, limit: HISTORY_LIMITS.defaultPageSize });
  });

  it('gives a page\'s `next` back as the key it came from, and makes it the inclusive upper bound below it', () => {
    const request = decodeRevisionsQuery({ cursor: cursorOf({ modified: 1700000000023, rev: 2 }), limit: '5', to: undefined }, NOW);

    expect(request.before).to.deep.equal({ modified: 1700000000023, rev: 2 });
    expect(upperKeyOf(request)).to.deep.equal({ modified: 1700000000023, rev: 1 });
    expect(upperKeyOf({ ...request, to: 1600000000000 }), 'a `to` below the cursor wins').to.deep.equal({ modified: 1600000000000, rev: Number.MAX_SAFE_INTEGER });
  });

  it('refuses a malformed time, limit or cursor with INVALID_QUERY', () => {
    expect(codeOf(() => decodeAt('1.5', NOW))).to.equal('INVALID_QUERY');
    expect(codeOf(() => decodeRevisionsQuery({ limit: String(HISTORY_LIMITS.maxPageSize + 1) }, NOW))).to.equal('INVALID_QUERY');
    expect(codeOf(() => decodeRevisionsQuery({ cursor: '12' }, NOW))).to.equal('INVALID_QUERY');
    expect(codeOf(() => decodeRevisionsQuery({ from: 'yesterday' }, NOW))).to.equal('INVALID_QUERY');
  });
});

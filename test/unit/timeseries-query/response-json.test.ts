import { expect } from 'chai';
import fc from 'fast-check';
import { answerBytes, answerBytesAtMost, answerJson, materializeAnswer, QueryAnswer, QueryRun } from '../../../src/timeseries/query';
import { StreamBuilder } from '../../../src/timeseries/query/point-stream';

/**
 * Issue 10 §1: answers are printed piece by piece, and must stay byte for byte what JSON.stringify printed before
 * (KairosDB clients and the differential tests compare them).
 */

const value = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(NaN, Infinity, -Infinity, -0, 0.1, 1e21, -1.2345678901234567e-308, Number.MAX_VALUE),
);
const time = fc.oneof(fc.integer({ min: -8.64e15, max: 8.64e15 }), fc.integer({ min: 1.6e12, max: 1.8e12 }));

/** A stream of numbers, null points (gaps) and array points (js_range with array_result). */
const stream = fc.array(fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.constant('number' as const), time, value) },
  { weight: 1, arbitrary: fc.tuple(fc.constant('null' as const), time, value) },
  { weight: 1, arbitrary: fc.tuple(fc.constant('array' as const), time, fc.array(value, { maxLength: 4 })) },
), { maxLength: 3000 }).map((points) => {
  const out = new StreamBuilder();
  for (const [kind, t, v] of points) {
    if (kind === 'null') out.pushNull(t);
    else if (kind === 'array') out.pushArray(t, v as number[]);
    else out.push(t, v as number);
  }
  return out.finish();
});

const text = fc.string({ unit: 'grapheme', maxLength: 12 });
const result = fc.record({
  name: text,
  group_by: fc.option(fc.constant([{ name: 'tag', tags: ['attr'], group: { attr: 'ü"\\' } }, { name: 'type', type: 'number' }]), { nil: undefined }),
  tags: fc.option(fc.dictionary(text, fc.array(text, { maxLength: 3 }), { maxKeys: 3 }), { nil: undefined }),
  values: fc.oneof({ weight: 4, arbitrary: stream }, { weight: 1, arbitrary: fc.constant([[1, 2], [3, null], [4, 5, 6]] as const) }),
}).map(({ group_by, tags, ...rest }) => ({ ...rest, ...(group_by ? { group_by } : {}), ...(tags ? { tags } : {}) }));

const answer: fc.Arbitrary<QueryAnswer> = fc.array(
  fc.record({ sample_size: fc.nat(), keys_scanned: fc.option(fc.nat(), { nil: undefined }), results: fc.array(result, { maxLength: 4 }) }),
  { maxLength: 3 },
).map((queries) => ({ queries: queries as QueryAnswer['queries'] }));

describe('printing an answer piece by piece (issue 10)', function () {
  this.timeout(60_000);

  it('prints exactly what JSON.stringify prints of the materialized answer', () => {
    fc.assert(fc.property(answer, fc.integer({ min: 1, max: 70_000 }), (a, chunkChars) => {
      expect([...answerJson(a, chunkChars)].join('')).to.equal(JSON.stringify(materializeAnswer(a)));
    }), { numRuns: 200 });
  });

  it('knows an upper bound of the size without printing, and the exact size by printing once', async () => {
    await fc.assert(fc.asyncProperty(answer, async (a) => {
      const bytes = Buffer.byteLength(JSON.stringify(materializeAnswer(a)), 'utf8');
      const run = new QueryRun();
      try {
        expect(await answerBytes(a, run)).to.equal(bytes);
      } finally {
        run.finish();
      }
      expect(answerBytesAtMost(a)).to.be.at.least(bytes);
    }), { numRuns: 100 });
  });
});

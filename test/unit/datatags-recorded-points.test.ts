import { expect } from 'chai';
import { decodeOrThrow } from '../../src/core/decode-errors';
import { DatatagRequest, datatagOf } from '../../src/datatags/codecs';
import { compileDatatags, recordedPoints } from '../../src/datatags/recorded-points';
import { compileSchema } from '../../src/schema/apply-schema';
import { ShadowSchema } from '../../src/schema/codecs';

const DAY = 86_400_000;
const TS = 1_700_000_000_000;
const tags = (...list: object[]) => compileDatatags(list.map((t) => datatagOf(decodeOrThrow(DatatagRequest, { ttl: '1d', ...t }))));
const schema = (properties: object) => compileSchema(decodeOrThrow(ShadowSchema, { properties }));
const values = (points: { tags: Readonly<Record<string, string>>; value: number; expiresAt?: number }[]) =>
  points.map((p) => [p.tags.attr, p.value, p.expiresAt]);

describe('recordedPoints: which points a write records (issue 23 §1, §2)', () => {
  it('without datatags or store.ttl: every numeric and boolean leaf but store:false fields, for the project retention', () => {
    const { points } = recordedPoints('d', { schema: schema({ note: { store: false } }), retentionMs: DAY }, { a: 1, b: { c: true }, note: 3, s: 'x' }, TS);

    expect(values(points)).to.deep.equal([['a', 1, TS + DAY], ['b.c', 1, TS + DAY]]);
  });

  it('leaves expiresAt out when nothing sets a retention', () => {
    const { points } = recordedPoints('d', {}, { a: 1 }, TS);

    expect(points).to.deep.equal([{ metric: 'd', tags: { attr: 'a' }, timestamp: TS, value: 1 }]);
  });

  it('with store.ttl in the schema: exactly the fields that carry one, each kept for its own ttl over the project\'s', () => {
    const compiled = schema({ a: { operation: { store: { ttl: '2d' } } }, b: { operation: { store: { ttl: 1000 } } }, c: {} });

    const { points } = recordedPoints('d', { schema: compiled, retentionMs: DAY }, { a: { x: 1 }, b: 2, c: 3 }, TS);

    expect(values(points)).to.deep.equal([['a.x', 1, TS + 2 * DAY], ['b', 2, TS + 1000]]);
  });

  it('with datatags: exactly the enabled tags the write holds, cast, computed and named by attr, over any schema rule', () => {
    const compiled = schema({ a: { operation: { store: { ttl: '2d' } } } });
    const recording = {
      schema: compiled,
      datatags: tags(
        { path: 'env.t', type: 'number', attr: 'temp', expression: '$.value * 2' },
        { path: 'open', type: 'boolean', attr: 'door', ttl: '1h' },
        { path: 'a', type: 'number', attr: 'off', enabled: false },
        { path: 'missing', type: 'number', attr: 'm' },
      ),
    };

    const { points, warnings } = recordedPoints('d', recording, { env: { t: '2.5' }, open: 'TRUE', a: 1 }, TS);

    expect(values(points)).to.deep.equal([['temp', 5, TS + DAY], ['door', 1, TS + 3_600_000]]);
    expect(warnings).to.deep.equal([]);
  });

  it('skips what a tag cannot cast or compute, with an "unrecorded" warning naming the tag', () => {
    const recording = { datatags: tags({ path: 'x', type: 'number', attr: 'x' }, { path: 'y', type: 'number', attr: 'y', expression: '$.value > 0 ? "big" : "small"' }) };

    const { points, warnings } = recordedPoints('d', recording, { x: { deep: 1 }, y: 1 }, TS);

    expect(points).to.deep.equal([]);
    expect(warnings.map((w) => [w.field, w.action, w.reason])).to.deep.equal([['x', 'unrecorded', 'type'], ['y', 'unrecorded', 'expression']]);
    expect(warnings[1].message).to.match(/^datatag "y": expression result "big" \(string\) cannot be read as a number/);
  });

  it('records nothing for a write that holds no tag\'s path, and nothing when every tag is disabled', () => {
    expect(recordedPoints('d', { datatags: tags({ path: 'a.b', type: 'number', attr: 'b' }) }, { a: 1, c: 2 }, TS).points).to.deep.equal([]);
    expect(recordedPoints('d', { datatags: tags({ path: 'a', type: 'number', attr: 'a', enabled: false }) }, { a: 1 }, TS).points).to.deep.equal([]);
  });

  it('shares one tags object per attr across calls given one map (the items of a batch)', () => {
    const map = new Map();
    const recording = { datatags: tags({ path: 'a', type: 'number', attr: 'a' }) };

    const first = recordedPoints('d', recording, { a: 1 }, TS, map).points[0];
    const second = recordedPoints('d', recording, { a: 2 }, TS + 1, map).points[0];

    expect(first.tags).to.equal(second.tags);
  });
});

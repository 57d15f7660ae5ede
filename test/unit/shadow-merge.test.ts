import { expect } from 'chai';
import { mergeShadowData, overwriteShadowData } from '../../src/shadows/merge';

describe('shadow merge (netpie reference §6.2)', () => {
  it('merges nested objects member by member', () => {
    const merged = mergeShadowData({ B: { b1: 'x', b2: 'y' }, a: 1 }, { B: { b2: 'N' } });
    expect(merged).to.deep.equal({ B: { b1: 'x', b2: 'N' }, a: 1 });
  });

  it('replaces arrays and scalars instead of merging them', () => {
    expect(mergeShadowData({ f2: ['A', 'B', 'C'] }, { f2: 'A' })).to.deep.equal({ f2: 'A' });
    expect(mergeShadowData({ f: [1, 2, 3] }, { f: [9] })).to.deep.equal({ f: [9] });
    expect(mergeShadowData({ o: { x: 1 } }, { o: 5 })).to.deep.equal({ o: 5 });
  });

  it('deletes keys set to null, nested ones too', () => {
    expect(mergeShadowData({ a: 1, b: { c: 2, d: 3 } }, { a: null, b: { c: null } })).to.deep.equal({ b: { d: 3 } });
  });

  it('leaves both inputs untouched', () => {
    const current = { b: { c: 1 } };
    const patch = { b: { d: 2 } };
    mergeShadowData(current, patch);
    expect(current).to.deep.equal({ b: { c: 1 } });
    expect(patch).to.deep.equal({ b: { d: 2 } });
  });

  it('keeps a member named __proto__ as plain data without touching any prototype', () => {
    const merged = mergeShadowData({}, JSON.parse('{"__proto__":{"polluted":true}}'));
    expect(Object.keys(merged)).to.deep.equal(['__proto__']);
    expect(JSON.stringify(merged)).to.equal('{"__proto__":{"polluted":true}}');
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
  });

  it('overwrite drops members set to null', () => {
    expect(overwriteShadowData({ a: 1, b: null, c: { d: null, e: 2 } })).to.deep.equal({ a: 1, c: { e: 2 } });
  });
});

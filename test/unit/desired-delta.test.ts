import { expect } from 'chai';
import { computeDelta, sameJson, touchesDesired } from '../../src/desired/delta';

describe('desired delta', () => {
  describe('computeDelta', () => {
    it('keeps the desired members that data lacks or holds another value for', () => {
      expect(computeDelta({ led: 'on', fan: 2, mode: 'eco' }, { led: 'off', mode: 'eco', temp: 21 })).to.deep.equal({ led: 'on', fan: 2 });
    });

    it('compares nested objects member by member, leaving out what the device reports already', () => {
      const desired = { config: { rate: 5, unit: 'C', net: { ssid: 'home' } } };
      const reported = { config: { rate: 5, unit: 'F', net: { ssid: 'home', rssi: -60 } } };

      expect(computeDelta(desired, reported)).to.deep.equal({ config: { unit: 'C' } });
    });

    it('compares arrays whole and by value, in order', () => {
      expect(computeDelta({ a: [1, 2], b: [1, 2] }, { a: [1, 2], b: [2, 1] })).to.deep.equal({ b: [1, 2] });
      expect(computeDelta({ a: [{ x: 1 }] }, { a: [{ x: 1 }] })).to.deep.equal({});
    });

    it('puts a desired object whole in the delta when data holds a scalar there, and a scalar when data holds an object', () => {
      expect(computeDelta({ o: { k: 1 } }, { o: 3 })).to.deep.equal({ o: { k: 1 } });
      expect(computeDelta({ o: 3 }, { o: { k: 1 } })).to.deep.equal({ o: 3 });
    });

    it('is empty when data meets every desired member, and tells 1 from "1" and 0 from false', () => {
      expect(computeDelta({ a: 1, b: { c: true } }, { a: 1, b: { c: true } })).to.deep.equal({});
      expect(computeDelta({ a: 1, b: 0 }, { a: '1', b: false })).to.deep.equal({ a: 1, b: 0 });
    });

    it('keeps a member named __proto__ as plain data', () => {
      const desired = JSON.parse('{"__proto__":{"x":1}}');
      const delta = computeDelta(desired, {});
      expect(Object.keys(delta)).to.deep.equal(['__proto__']);
      expect(({} as { x?: number }).x).to.equal(undefined);
    });
  });

  describe('sameJson', () => {
    it('ignores member order and tells null from a missing member', () => {
      expect(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 })).to.equal(true);
      expect(sameJson({ a: null }, {})).to.equal(false);
    });
  });

  describe('touchesDesired', () => {
    it('is true for an overwrite, and for a merge that names a desired member only', () => {
      expect(touchesDesired({ led: 'on' }, { temp: 1 }, false)).to.equal(true);
      expect(touchesDesired({ led: 'on' }, { led: null }, true)).to.equal(true);
      expect(touchesDesired({ led: 'on' }, { temp: 1 }, true)).to.equal(false);
    });
  });
});

import { expect } from 'chai';
import { isLeft } from 'fp-ts/Either';
import { describeErrors } from '../../src/core/decode-errors';
import { applySchema, compileSchema } from '../../src/schema/apply-schema';
import { ShadowSchema } from '../../src/schema/codecs';
import { coerceTo } from '../../src/schema/coerce';

const schemaOf = (body: unknown) => {
  const decoded = ShadowSchema.decode(body);
  if (isLeft(decoded)) throw new Error(describeErrors(decoded.left).join('; '));
  return compileSchema(decoded.right);
};

const problemsOf = (body: unknown): string[] => {
  const decoded = ShadowSchema.decode(body);
  return isLeft(decoded) ? describeErrors(decoded.left) : [];
};

/** The example of netpie reference §7.1. */
const REFERENCE = schemaOf({
  additionalProperties: false,
  properties: {
    tempF: { type: 'number', autofill: true, operation: { transform: { expression: '($.tempC * 1.8) + 32', dp: 2 } } },
    tempC: { type: 'number' },
    humid: { type: 'number', minimum: 0, maximum: 100 },
    place: { type: 'string' },
  },
});

describe('shadow schemas (netpie reference §7.1)', () => {
  describe('conversions', () => {
    const cases: [Parameters<typeof coerceTo>[0], unknown, unknown][] = [
      ['string', 2, '2'],
      ['string', true, 'true'],
      ['string', { x: 123 }, '{"x":123}'],
      ['number', '2.3', 2.3],
      ['number', true, 1],
      ['boolean', 'TruE', true],
      ['boolean', 'False', false],
      ['boolean', 0, false],
      ['boolean', 1, true],
    ];
    for (const [type, from, to] of cases) {
      it(`${JSON.stringify(from)} to ${type} is ${JSON.stringify(to)}`, () => {
        expect(coerceTo(type, from as never)).to.deep.equal({ ok: true, value: to, coerced: true });
      });
    }

    const refused: [Parameters<typeof coerceTo>[0], unknown][] = [
      ['number', { x: 1 }],
      ['number', 'abc'],
      ['number', ''],
      ['boolean', 'yes'],
      ['boolean', 2],
      ['boolean', { a: true }],
      ['array', 'a,b'],
      ['object', [1]],
    ];
    for (const [type, from] of refused) {
      it(`refuses ${JSON.stringify(from)} as ${type}`, () => expect(coerceTo(type, from as never).ok).to.equal(false));
    }
  });

  describe('applying a schema to a write', () => {
    it('computes tempF from tempC, rounded to dp, and counts the expression run', () => {
      const out = applySchema(REFERENCE, { tempC: 21.123 }, {});
      expect(out.data).to.deep.equal({ tempC: 21.123, tempF: 70.02 });
      expect(out.expressionRuns).to.equal(1);
      expect(out.warnings).to.deep.equal([]);
    });

    it('drops fields a closed schema does not list, with a warning naming each (reference: {temp:28,humid:8.9} keeps humid)', () => {
      const out = applySchema(schemaOf({ additionalProperties: false, properties: { humid: { type: 'number' } } }), { temp: 28, humid: 8.9 }, {});
      expect(out.data).to.deep.equal({ humid: 8.9 });
      expect(out.warnings).to.deep.equal([
        { field: 'temp', action: 'dropped', reason: 'additionalProperties', message: 'not a property of the schema, which has "additionalProperties": false' },
      ]);
    });

    it('converts with a warning and drops what cannot be converted, the rest of the write going on', () => {
      const out = applySchema(REFERENCE, { tempC: '30', humid: { x: 1 }, place: 7 }, {});
      expect(out.data).to.deep.equal({ tempC: 30, place: '7', tempF: 86 });
      expect(out.warnings.map((w) => [w.field, w.action, w.reason])).to.deep.equal([
        ['tempC', 'coerced', 'type'],
        ['humid', 'dropped', 'type'],
        ['place', 'coerced', 'type'],
      ]);
      expect(out.warnings[0].message).to.equal('"30" (string) stored as 30 (number)');
    });

    it('drops numbers outside minimum and maximum', () => {
      const out = applySchema(REFERENCE, { humid: 101, tempC: 1 }, {});
      expect(out.data).to.not.have.property('humid');
      expect(out.warnings).to.deep.include({ field: 'humid', action: 'dropped', reason: 'range', message: '101 is above the maximum 100' });
    });

    it('reads the stored shadow as $$ and the schema default while the shadow has no value', () => {
      const smooth = schemaOf({
        properties: { humid: { type: 'number', default: 50, operation: { transform: { expression: '0.9*$$.humid + 0.1*$.humid', dp: 1 } } } },
      });
      expect(applySchema(smooth, { humid: 60 }, {}).data).to.deep.equal({ humid: 51 });
      expect(applySchema(smooth, { humid: 60 }, { humid: 70 }).data).to.deep.equal({ humid: 69 });
    });

    it('runs a transform without autofill only when the write mentions the field', () => {
      const derived = schemaOf({ properties: { f: { type: 'number', operation: { transform: { expression: '$.c * 2' } } } } });
      expect(applySchema(derived, { c: 2 }, {})).to.deep.include({ data: { c: 2 }, expressionRuns: 0 });
      expect(applySchema(derived, { c: 2, f: 0 }, {})).to.deep.include({ data: { c: 2, f: 4 }, expressionRuns: 1 });
    });

    it('drops a field whose expression fails, saying why, and leaves out one whose expression gives null', () => {
      const out = applySchema(REFERENCE, { place: 'home' }, {});
      expect(out.data).to.deep.equal({ place: 'home' });
      expect(out.expressionRuns).to.equal(1);
      expect(out.warnings).to.deep.equal([
        { field: 'tempF', action: 'dropped', reason: 'expression', message: 'expression failed: cannot apply * to null and number (at character 10)' },
      ]);
      const skip = schemaOf({ properties: { f: { autofill: true, operation: { transform: { expression: '$.c == null ? null : $.c' } } } } });
      expect(applySchema(skip, {}, {})).to.deep.equal({ data: {}, warnings: [], expressionRuns: 1 });
    });

    it('passes null (delete the field) through without converting it or running its transform', () => {
      const out = applySchema(REFERENCE, { tempC: null, tempF: null, humid: null }, {});
      expect(out.data).to.deep.equal({ tempC: null, tempF: null, humid: null });
      expect(out.warnings).to.deep.equal([]);
    });

    it('keeps a top-5 list with the array helpers of the reference', () => {
      const top5 = schemaOf({
        properties: { temp: { type: 'number' }, top5: { type: 'array', autofill: true, operation: { transform: { expression: 'slice(sort(concat($$.top5,[$.temp])),-5)' } } } },
      });
      let shadow = {};
      for (const temp of [5, 9, 1, 7, 3, 8]) shadow = { ...shadow, ...applySchema(top5, { temp }, shadow).data };
      expect(shadow).to.deep.equal({ temp: 8, top5: [3, 5, 7, 8, 9] });
    });

    it('passes a write through untouched by a schema that lists none of its fields and is open', () => {
      const data = { a: 1, b: { c: 'x' } };
      expect(applySchema(schemaOf({ properties: {} }), data, {})).to.deep.equal({ data, warnings: [], expressionRuns: 0 });
    });
  });

  describe('refusing a bad schema when it is saved', () => {
    const bad: [string, unknown, RegExp][] = [
      ['no properties', {}, /properties: required/],
      ['an unknown member', { properties: {}, extra: 1 }, /unknown member "extra"/],
      ['a bad field name', { properties: { 'a-b': { type: 'number' } } }, /A-Z a-z 0-9 _/],
      ['an unknown type', { properties: { a: { type: 'int' } } }, /properties\.a\.type/],
      ['minimum on a string', { properties: { a: { type: 'string', minimum: 1 } } }, /need "type": "number"/],
      ['minimum above maximum', { properties: { a: { type: 'number', minimum: 2, maximum: 1 } } }, /greater than maximum/],
      ['autofill without an expression', { properties: { a: { type: 'number', autofill: true } } }, /autofill needs/],
      ['a syntax error', { properties: { a: { operation: { transform: { expression: '$.x *' } } } } }, /expression: expected a value/],
      ['an unknown variable', { properties: { a: { operation: { transform: { expression: '$NEW.x' } } } } }, /unknown variable \$NEW/],
      ['dp out of range', { properties: { a: { operation: { transform: { expression: '1', dp: 20 } } } } }, /dp/],
      ['a default of the wrong type', { properties: { a: { type: 'number', default: 'x' } } }, /default: must be of type number/],
      ['a store.ttl in no unit NETPIE has', { properties: { a: { type: 'number', operation: { store: { ttl: '30w' } } } } }, /properties\.a\.operation\.store\.ttl: must be a whole number/],
      ['a store.ttl beside store:false', { properties: { a: { store: false, operation: { store: { ttl: '30d' } } } } }, /contradict/],
      ['a store without a ttl', { properties: { a: { operation: { store: {} } } } }, /store\.ttl: required/],
    ];
    for (const [what, body, message] of bad) {
      it(`${what}`, () => expect(problemsOf(body).join('\n')).to.match(message));
    }

    it('names the default and shows its value when it has the wrong type (issue 10)', () => {
      const cases: [unknown, string][] = [
        [{ type: 'string', default: 5 }, 'properties.a.default: must be of type string (got 5)'],
        [{ type: 'boolean', default: 'yes' }, 'properties.a.default: must be of type boolean (got "yes")'],
        [{ type: 'number', default: true }, 'properties.a.default: must be of type number (got true)'],
        [{ type: 'number', default: { x: 1 } }, 'properties.a.default: must be of type number (got an object)'],
      ];
      for (const [field, line] of cases) expect(problemsOf({ properties: { a: field } })).to.deep.equal([line]);
    });

    it('refuses a property named __proto__ without touching any prototype', () => {
      expect(problemsOf(JSON.parse('{"properties":{"__proto__":{"type":"number"}}}'))).to.have.length(0);
      const decoded = ShadowSchema.decode(JSON.parse('{"properties":{"__proto__":{"type":"number"}}}'));
      expect(isLeft(decoded) ? undefined : Object.keys(decoded.right.properties)).to.deep.equal(['__proto__']);
    });
  });
});

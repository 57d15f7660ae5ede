import { expect } from 'chai';
import { AppError } from '../../src/core/errors';
import { parseJson } from '../../src/core/json';

const lenient = (text: string) => parseJson(Buffer.from(text), 'lenient');

/** KairosDB reads query bodies with Gson in lenient mode (kairosdb reference §1); the service reads them alike. */
describe('parseJson, lenient', () => {
  it('accepts # line comments like Gson, beside // and /* */', () => {
    const text = '# a query\n{"start_relative": {"value": 1, "unit": "hours"}, # to now\n /* block */ "metrics": [] // none\n}';
    expect(lenient(text)).to.deep.equal({ start_relative: { value: 1, unit: 'hours' }, metrics: [] });
  });

  it('keeps # inside strings, single-quoted strings and escaped quotes', () => {
    expect(lenient(`{"a": "x#y", 'b': 'it\\'s #1', "c": "q\\"#"}`)).to.deep.equal({ a: 'x#y', b: "it's #1", c: 'q"#' });
  });

  it('leaves a # inside a block comment alone, so the comment still ends', () => {
    expect(lenient('{/* see # below */ "a": 1}')).to.deep.equal({ a: 1 });
  });

  it('still refuses # in strict JSON', () => {
    expect(() => parseJson(Buffer.from('{"a": 1} # no'), 'strict')).to.throw(AppError, /not valid JSON/);
  });
});

/** What Gson's lenient JsonReader takes beyond JSON5 (KairosDB answers 200 to them), and what stays as it was. */
describe('parseJson, lenient: Gson lenient syntax (issue 23 §5)', () => {
  it('reads unquoted string values, as KairosDB does: {name:sum,unit:hours}', () => {
    expect(lenient('{name:sum,unit:hours}')).to.deep.equal({ name: 'sum', unit: 'hours' });
    expect(lenient('{metrics:[{name:4e1d7c2a-9b1f-4c1e-8f00-0123456789ab,tags:{attr:[env.temp,humid]}}]}')).to.deep.equal({
      metrics: [{ name: '4e1d7c2a-9b1f-4c1e-8f00-0123456789ab', tags: { attr: ['env.temp', 'humid'] } }],
    });
  });

  it('keeps unquoted true, false, null (in any case, as Gson) and numbers what they are', () => {
    expect(lenient('{a:true,b:FALSE,c:Null,d:42,e:-1.5e3,f:0}')).to.deep.equal({ a: true, b: false, c: null, d: 42, e: -1500, f: 0 });
    expect(lenient('[truely, nullable, falsehood]')).to.deep.equal(['truely', 'nullable', 'falsehood']);
  });

  it("keeps JSON5's numbers (hex, leading or trailing dot, plus sign, Infinity, NaN); other words that start with digits are strings", () => {
    const parsed = lenient('{a:0x1F,b:.5,c:5.,d:+1,e:-Infinity,f:NaN,g:01,h:5m,i:1.2.3}') as Record<string, unknown>;
    expect(parsed).to.deep.include({ a: 31, b: 0.5, c: 5, d: 1, e: -Infinity, g: '01', h: '5m', i: '1.2.3' });
    expect(parsed.f).to.be.NaN;
  });

  it("ends an unquoted value where Gson does, and takes Gson's separators: ; between members and elements, = and =>", () => {
    expect(lenient('{unit = hours; name => sum; list: [a; b, c]}')).to.deep.equal({ unit: 'hours', name: 'sum', list: ['a', 'b', 'c'] });
    expect(lenient('{unit:hours# a comment\n,name:sum/* another */}')).to.deep.equal({ unit: 'hours', name: 'sum' });
    expect(lenient("{a:it's}")).to.deep.equal({ a: "it's" });
  });

  it('reads an element left out of an array as null (Gson) and drops a trailing separator (JSON5)', () => {
    expect(lenient('[1,,2]')).to.deep.equal([1, null, 2]);
    expect(lenient('[,1]')).to.deep.equal([null, 1]);
    expect(lenient('[1,2,]')).to.deep.equal([1, 2]);
    expect(lenient('{a:1,}')).to.deep.equal({ a: 1 });
  });

  it("takes JSON5's and Gson's escapes, and Gson's non-execute prefix", () => {
    expect(lenient(`{a:'\\x41\\u0042\\q\\/', b:"line\\\nnext"}`)).to.deep.equal({ a: 'ABq/', b: 'linenext' });
    expect(lenient(")]}'\n{a:1}")).to.deep.equal({ a: 1 });
  });

  it('keeps a member named __proto__ as data', () => {
    const parsed = lenient('{__proto__:{polluted:yes}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).to.equal(Object.prototype);
    expect(Object.keys(parsed)).to.deep.equal(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
  });

  it('refuses what Gson refuses too, saying where: a missing value or name, two values, an unterminated object or string', () => {
    for (const [text, where] of [['{a:}', '1:4'], ['{:1}', '1:2'], ['{a:b c}', '1:6'], ['{a:1', '1:5'], ["{a:'x}", '1:7'], ['{a:1}\n x', '2:2']]) {
      expect(() => lenient(text), text).to.throw(AppError, new RegExp(`not valid JSON: .* at ${where}$`));
    }
  });
});

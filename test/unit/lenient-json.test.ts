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

import { expect } from 'chai';
import { compileExpression, expressionProblem } from '../../src/expressions/compile';
import { ExpressionError } from '../../src/expressions/errors';
import { EXPRESSION_LIMITS } from '../../src/expressions/limits';
import { parseTemplate, templateProblem } from '../../src/expressions/template';
import { roundTo } from '../../src/expressions/values';
import { Json } from '../../src/core/json';

const incoming = { tempC: 20, humid: 60, temp: 4, home: { bedroom: { temp: 25 } }, name: 'lamp', list: [3, 1, 2] };
const previous = { humid: 50, top5: [9, 1, 7, 3, 5] };
const vars = new Map<string, Json>([['$', incoming], ['$$', previous]]);

const run = (source: string, variables: ReadonlyMap<string, Json> = vars) => compileExpression(source).run(variables);
const failure = (source: string, variables: ReadonlyMap<string, Json> = vars): ExpressionError => {
  try {
    run(source, variables);
  } catch (err) {
    expect(err).to.be.instanceOf(ExpressionError);
    return err as ExpressionError;
  }
  throw new Error(`${source} did not fail`);
};

describe('the expression language (netpie reference §7.2, §8.1)', () => {
  describe('arithmetic and precedence', () => {
    const cases: [string, Json][] = [
      ['($.tempC * 1.8) + 32', 68],
      ['0.9*$$.humid + 0.1*$.humid', 51],
      ['1 + 2 * 3', 7],
      ['(1 + 2) * 3', 9],
      ['10 - 4 - 3', 3],
      ['2 ^ 3 ^ 2', 512],
      ['-2 ^ 2', -4],
      ['2 ^ -1', 0.5],
      ['7 // 2', 3],
      ['-7 // 2', -4],
      ['7 % 3', 1],
      ['8 / 2 / 2', 2],
      ['1e3 + 0.5', 1000.5],
      ['1 + 2 == 3', true],
      ['1 < 2 == 2 > 1', true],
      ['true || false && false', true],
      ['!true || true', true],
      ['!(1 > 2)', true],
      ['1 < 2 ? "yes" : "no"', 'yes'],
      ['false ? 1 : true ? 2 : 3', 2],
      ['null ?? 5', 5],
      ['0 ?? 5', 0],
      ['$.nothing ?? $.tempC', 20],
    ];
    for (const [source, expected] of cases) {
      it(`${source} = ${JSON.stringify(expected)}`, () => expect(run(source)).to.deep.equal(expected));
    }
  });

  describe('values, types and variables', () => {
    it('reads dotted paths of $ (incoming) and $$ (previous); absent members are null', () => {
      expect(run('$.home.bedroom.temp')).to.equal(25);
      expect(run('$$.humid')).to.equal(50);
      expect(run('$.home.kitchen.temp')).to.equal(null);
      expect(run('$.tempC.x')).to.equal(null);
    });

    it('indexes arrays and objects with [ ]', () => {
      expect(run('$.list[0]')).to.equal(3);
      expect(run('$.list[9]')).to.equal(null);
      expect(run('$["tempC"]')).to.equal(20);
      expect(run('[1, [2, 3]][1][0]')).to.equal(2);
    });

    it('joins strings with +, writing numbers, booleans, null and JSON as text', () => {
      expect(run('"t=" + $.tempC')).to.equal('t=20');
      expect(run('1 + 2 + "a"')).to.equal('3a');
      expect(run('"a" + 1 + 2')).to.equal('a12');
      expect(run('"" + true + null')).to.equal('truenull');
      expect(run('"" + $.home.bedroom')).to.equal('{"temp":25}');
    });

    it('compares with deep equality and no conversion', () => {
      expect(run('[1, [2, "a"]] == [1, [2, "a"]] && $.home == $.home')).to.equal(true);
      expect(run('1 == "1"')).to.equal(false);
      expect(run('1 === 1 && 1 !== 2 && 1 != "1"')).to.equal(true);
      expect(run('"b" > "a"')).to.equal(true);
    });

    it('treats an ordering comparison with null as false, so conditions on absent fields do not fail', () => {
      expect(run('$.absent > 30')).to.equal(false);
      expect(run('$.absent <= 30')).to.equal(false);
    });

    it('tests membership with in: arrays, substrings and object members', () => {
      expect(run('2 in [1, 2]')).to.equal(true);
      expect(run('"amp" in $.name')).to.equal(true);
      expect(run('"tempC" in $')).to.equal(true);
      expect(run('"x" in null')).to.equal(false);
    });
  });

  describe('array helpers', () => {
    it('runs the reference example slice(sort(concat($$.top5,[$.temp])),-5)', () => {
      expect(run('slice(sort(concat($$.top5,[$.temp])),-5)')).to.deep.equal([3, 4, 5, 7, 9]);
    });

    it('concatenates with null as nothing, so the first write works before the array exists', () => {
      expect(run('concat($$.missing, [$.temp])')).to.deep.equal([4]);
      expect(run('concat([1], 2, [3, 4])')).to.deep.equal([1, 2, 3, 4]);
    });

    it('slices like JavaScript, sorts both ways and reverses', () => {
      expect(run('slice([1,2,3,4], 1, 3)')).to.deep.equal([2, 3]);
      expect(run('slice("hello", -3)')).to.equal('llo');
      expect(run('sort($.list, -1)')).to.deep.equal([3, 2, 1]);
      expect(run('sort(["b", "a"])')).to.deep.equal(['a', 'b']);
      expect(run('reverse($.list)')).to.deep.equal([2, 1, 3]);
      expect(incoming.list).to.deep.equal([3, 1, 2]);
    });

    it('has length, includes, min, max, sum, avg, round, abs, floor, ceil, sqrt, number and string', () => {
      expect(run('length($.list) + length("ab") + length($)')).to.equal(3 + 2 + 6);
      expect(run('includes($.list, 2)')).to.equal(true);
      expect(run('[min($.list), max(4, 9), sum($.list), avg([1, 2])]')).to.deep.equal([1, 9, 6, 1.5]);
      expect(run('[round(2.345, 2), round(-2.5), abs(-3), floor(1.7), ceil(1.2), sqrt(9)]')).to.deep.equal([2.35, -3, 3, 1, 2, 3]);
      expect(run('number("2.5") + number(true)')).to.equal(3.5);
      expect(run('string(12) + string([1])')).to.equal('12[1]');
    });
  });

  describe('errors', () => {
    const evaluationErrors: [string, RegExp][] = [
      ['1 / 0', /division by zero/],
      ['5 % 0', /division by zero/],
      ['10 ^ 400', /not a finite number/],
      ['$.tempC * $.nothing', /cannot apply \* to number and null/],
      ['"a" - 1', /cannot apply - to string and number/],
      ['[1] + [2]', /cannot add array and array/],
      ['"a" < 1', /cannot compare string with number/],
      ['-"a"', /cannot apply - to string/],
      ['1 in 5', /"in" needs an array/],
      ['$NEW.temp', /unknown variable \$NEW/],
      ['nosuch(1)', /unknown function nosuch\(\)/],
      ['sort([1, "a"])', /numbers or an array of strings/],
      ['sort([1], 2)', /direction must be 1 or -1/],
      ['slice([1], 0.5)', /whole number/],
      ['reverse(1, 2)', /takes 1 argument, got 2/],
      ['min([])', /at least one number/],
      ['number("abc")', /cannot read "abc"/],
    ];
    for (const [source, message] of evaluationErrors) {
      it(`${source}: ${message.source}`, () => {
        const err = failure(source);
        expect(err.kind).to.equal('evaluation');
        expect(err.message).to.match(message);
      });
    }

    const syntaxErrors: [string, RegExp, number][] = [
      ['1 +', /expected a value, found the end/, 3],
      ['(1 + 2', /expected "\)"/, 6],
      ['1 2', /expected an operator or the end/, 2],
      ['$.', /expected a field name after "."/, 1],
      ['"open', /string is not closed/, 0],
      ['1 # 2', /unexpected character "#"/, 2],
      ['a ? 1', /expected ":"/, 5],
      ['"\\q"', /unknown escape/, 1],
      ['f(1,', /expected a value/, 4],
    ];
    for (const [source, message, position] of syntaxErrors) {
      it(`refuses ${JSON.stringify(source)} with a syntax error at character ${position + 1}`, () => {
        const err = (() => {
          try {
            compileExpression(source);
          } catch (e) {
            return e as ExpressionError;
          }
          throw new Error('parsed');
        })();
        expect(err.kind).to.equal('syntax');
        expect(err.message).to.match(message);
        expect(err.position).to.equal(position);
      });
    }

    it('names unknown variables and functions before an expression is ever run', () => {
      const allowed = new Set(['$', '$$']);
      expect(expressionProblem('$.a + $$.b', allowed)).to.equal(undefined);
      expect(expressionProblem('$NEW.a > 1', allowed)).to.match(/unknown variable \$NEW; known here: \$, \$\$/);
      expect(expressionProblem('eval("1")', allowed)).to.match(/unknown function eval\(\)/);
      expect(expressionProblem('1 +', allowed)).to.match(/expected a value/);
    });
  });

  describe('limits', () => {
    it(`refuses an expression longer than ${EXPRESSION_LIMITS.maxLength} characters`, () => {
      expect(() => compileExpression('1+'.repeat(600) + '1')).to.throw(ExpressionError, /characters long; the limit is 1024/);
    });

    it(`refuses nesting deeper than ${EXPRESSION_LIMITS.maxDepth} levels`, () => {
      expect(() => compileExpression('('.repeat(60) + '1' + ')'.repeat(60))).to.throw(ExpressionError, /nested more than 48 levels/);
      expect(() => compileExpression('-'.repeat(60) + '1')).to.throw(ExpressionError, /nested/);
    });

    it(`stops an evaluation after ${EXPRESSION_LIMITS.maxSteps} steps`, () => {
      const big = new Map<string, Json>([['$', { a: Array.from({ length: 9000 }, (_, i) => i) }]]);
      expect(() => run('sort(concat($.a, $.a))', big)).to.throw(ExpressionError, /more than 10000 steps/);
    });

    it('refuses arrays and strings that grow past their limits', () => {
      const big = new Map<string, Json>([['$', { a: Array.from({ length: 6000 }, () => 1), s: 'x'.repeat(40_000) }]]);
      expect(() => run('concat($.a, $.a)', big)).to.throw(ExpressionError, /array longer than 10000|more than 10000 steps/);
      expect(() => run('$.s + $.s', big)).to.throw(ExpressionError, /string longer than 65536/);
    });
  });

  describe('no way out to the host', () => {
    const hostile = [
      'constructor',
      'process',
      'globalThis',
      'require("fs")',
      'eval("1")',
      'Function("return 1")',
      '$.constructor.constructor("return process")()',
      '$["constructor"]["constructor"]',
      '$.__proto__',
      '[].constructor',
      '"".constructor',
      'toString()',
      'hasOwnProperty("x")',
      '__proto__',
    ];
    for (const source of hostile) {
      it(`${source} reaches nothing of the host`, () => {
        let result: Json | undefined;
        try {
          result = run(source);
        } catch (err) {
          expect(err).to.be.instanceOf(ExpressionError);
          return;
        }
        expect(result).to.equal(null);
      });
    }

    it('keeps a member named __proto__ or constructor as plain data', () => {
      const data = new Map<string, Json>([['$', JSON.parse('{"__proto__": {"x": 1}, "constructor": 2}')]]);
      expect(run('$.__proto__.x', data)).to.equal(1);
      expect(run('$.constructor', data)).to.equal(2);
      expect(({} as Record<string, unknown>).x).to.equal(undefined);
    });
  });

  describe('dp rounding', () => {
    it('rounds to decimal places, halves away from zero, on decimal digits', () => {
      expect(roundTo(0.3333, 1)).to.equal(0.3);
      expect(roundTo(1.005, 2)).to.equal(1.01);
      expect(roundTo(-0.25, 1)).to.equal(-0.3);
      expect(roundTo(68.123456, 2)).to.equal(68.12);
      expect(roundTo(1e-20, 2)).to.equal(0);
      expect(roundTo(1.5e21, 2)).to.equal(1.5e21);
    });
  });

  describe('{{ }} templates (netpie reference §8.3)', () => {
    const templateVars = new Map<string, Json>([
      ['$NEW', { temp: 31.5, place: { room: 'bed' } }],
      ['$DEVICEID', 'abc'],
      ['context', { token: 't0k', msg: 'a&b c' }],
    ]);

    it('fills each hole with the value as text, objects as JSON and null as null', () => {
      const t = parseTemplate('{"id":"{{$DEVICEID}}","temp":{{ $NEW.temp }},"place":{{$NEW.place}},"none":{{$NEW.x}}}');
      expect(JSON.parse(t.render(templateVars))).to.deep.equal({ id: 'abc', temp: 31.5, place: { room: 'bed' }, none: null });
    });

    it('encodes the holes only, for URIs', () => {
      const t = parseTemplate('https://api.telegram.org/bot{{context.token}}/sendMessage?text={{context.msg}}');
      expect(t.render(templateVars, encodeURIComponent)).to.equal('https://api.telegram.org/bott0k/sendMessage?text=a%26b%20c');
    });

    it('keeps the type of a template that is one hole', () => {
      expect(parseTemplate('{{ $NEW.temp }}').value(templateVars)).to.equal(31.5);
      expect(parseTemplate('t={{ $NEW.temp }}').value(templateVars)).to.equal('t=31.5');
    });

    it('says which hole is wrong', () => {
      expect(templateProblem('a {{ 1 + }} b', new Set())).to.match(/expected a value.*character 10/);
      expect(templateProblem('a {{ x', new Set())).to.match(/not closed/);
      expect(templateProblem('a {{ }}', new Set())).to.match(/empty/);
      expect(templateProblem('{{ $OLD.x }}', new Set(['$NEW']))).to.match(/\{\{ \$OLD\.x \}\}: unknown variable \$OLD/);
      expect(() => parseTemplate('{{ $NEW.temp * "a" }}').render(templateVars)).to.throw(ExpressionError, /\{\{ \$NEW\.temp \* "a" \}\}: cannot apply/);
    });
  });
});

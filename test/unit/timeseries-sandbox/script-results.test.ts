import { expect } from 'chai';
import { createQuickJsSandbox, QuickJsSandbox } from '../../../src/timeseries/sandbox/quickjs-sandbox';
import { appErrorOf } from './app-error-of';

/**
 * js_function, js_filter and js_range through the real QuickJS sandbox, with the semantics of
 * KC-SAS/kise-kairosdb-module (reference §6.5). Scripts marked "module" are taken from its README and tests.
 */

const TS = [1000, 2000, 3000, 4000];
const VALUES = [2, 6, 10, 1];

describe('script sandbox: results of js_function, js_filter and js_range', () => {
  let sandbox: QuickJsSandbox;
  before(() => {
    sandbox = createQuickJsSandbox();
  });
  after(() => sandbox.close());

  describe('js_function (mapPoints)', () => {
    it('returns an expression\'s value for every point, in order (module: "value * 3.0")', async () => {
      expect(await sandbox.mapPoints('value * 3.0', TS, VALUES)).to.deep.equal([6, 18, 30, 3]);
    });

    it('runs a script with a return statement as a function body, with value and timestamp', async () => {
      const script = 'var periodic_element = Math.sin(timestamp) * 2.0\nvar calibrated_value = Math.log(value * 10)\nreturn periodic_element + calibrated_value';
      const expected = TS.map((t, i) => Math.sin(t) * 2 + Math.log(VALUES[i] * 10));
      const results = await sandbox.mapPoints(script, TS, VALUES);
      results.forEach((r, i) => expect(r).to.be.closeTo(expected[i], 1e-12));
    });

    it('gives epoch-millisecond timestamps exactly', async () => {
      const now = 1_726_000_000_123;
      expect(await sandbox.mapPoints('timestamp', [now, now + 1], [0, 0])).to.deep.equal([now, now + 1]);
    });

    it('accepts a trailing semicolon after an expression', async () => {
      expect(await sandbox.mapPoints('value + 1;', [1], [41])).to.deep.equal([42]);
    });

    it('lets NaN and Infinity through as numbers, as the module does', async () => {
      expect(await sandbox.mapPoints('value / 0', [1, 2], [1, 0])).to.deep.equal([Infinity, NaN]);
    });

    it('does not run the script at all for no points', async () => {
      expect(await sandbox.mapPoints('this is not javascript', [], [])).to.deep.equal([]);
    });
  });

  describe('js_filter (filterPoints)', () => {
    it('KEEPS the points whose predicate is true (module: "value > 5")', async () => {
      expect(await sandbox.filterPoints('value > 5', TS, VALUES)).to.deep.equal([false, true, true, false]);
    });

    it('sees timestamps too', async () => {
      expect(await sandbox.filterPoints('return timestamp % 2000 === 0', TS, VALUES)).to.deep.equal([false, true, false, true]);
    });

    it('rejects a result that is not a boolean, as the module\'s (Boolean) cast does', async () => {
      const err = await appErrorOf(sandbox.filterPoints('value', TS, VALUES));
      expect(err.status).to.equal(400);
      expect(err.message).to.equal('Script result should be boolean, got number');
    });
  });

  describe('js_range (reduceRanges)', () => {
    const ranges = [
      { timestamps: [1030, 1050, 1603], values: [10, 20.3, 3] },
      { timestamps: [2005, 2400, 2803], values: [1, 3.2, 5] },
      { timestamps: [3068], values: [25.1] },
    ];

    it('sums each range through the values iterator (module README: hasNext / next().getLongValue())', async () => {
      const script = 'var result=0;\nwhile( values.hasNext()){\nresult += values.next().getLongValue();\n}\nreturn result;\n\n';
      expect(await sandbox.reduceRanges(script, ranges, false)).to.deep.equal([33, 9, 25]);
    });

    it('averages each range through valueArray as a java.util.List (module test: size() / get(i).getDoubleValue())', async () => {
      const script = 'var sum = 0; for(var i=0; i<valueArray.size();i++){sum+=valueArray.get(i).getDoubleValue();} return sum/valueArray.size(); ';
      const results = (await sandbox.reduceRanges(script, ranges, false)) as number[];
      expect(results[0]).to.be.closeTo(11.1, 1e-9);
      expect(results[1]).to.be.closeTo(3.0667, 1e-4);
      expect(results[2]).to.equal(25.1);
    });

    it('gives valueArray as a plain array of numbers', async () => {
      const script = 'return Array.isArray(valueArray) ? valueArray.reduce(function (a, b) { return Math.max(a, b); }, -Infinity) : -1';
      expect(await sandbox.reduceRanges(script, ranges, false)).to.deep.equal([20.3, 5, 25.1]);
    });

    it('gives each point as an object with timestamp and value, and values as a JS iterable', async () => {
      const script = 'var last = 0; for (var p of values) last = p.timestamp + p.value; return last';
      expect(await sandbox.reduceRanges(script, ranges, false)).to.deep.equal([1606, 2808, 3093.1]);
    });

    it('returns an array per range with arrayResult (module test: [count, valueArray.size()])', async () => {
      const script = 'var count= 0.; \nfor(var i=0;i<valueArray.size();i++){\n  count+=valueArray.get(i).getDoubleValue();\n}\nreturn [count,valueArray.size()]; ';
      const results = (await sandbox.reduceRanges(script, ranges, true)) as number[][];
      expect(results.map((r) => r[1])).to.deep.equal([3, 3, 1]);
      expect(results[0][0]).to.be.closeTo(33.3, 1e-9);
      expect(results[2]).to.deep.equal([25.1, 1]);
    });

    it('allows empty arrays and empty ranges', async () => {
      const withEmpty = [...ranges, { timestamps: [], values: [] }];
      expect(await sandbox.reduceRanges('return valueArray.length ? [] : [0]', withEmpty, true)).to.deep.equal([[], [], [], [0]]);
    });

    it('rejects an array where a number is expected, and a number where an array is expected', async () => {
      expect((await appErrorOf(sandbox.reduceRanges('return [1]', ranges, false))).message)
        .to.equal('Script result should be number, got array');
      expect((await appErrorOf(sandbox.reduceRanges('return 1', ranges, true))).message)
        .to.equal('Script result should be an array of numbers, got number');
      expect((await appErrorOf(sandbox.reduceRanges('return [1, "2"]', ranges, true))).message)
        .to.equal('Script result should be number, got string');
    });

    it('throws the module\'s NoSuchElementException when a script reads past the end of a range', async () => {
      const err = await appErrorOf(sandbox.reduceRanges('values.next(); values.next(); return 0', [{ timestamps: [1], values: [1] }], false));
      expect(err.message).to.contain('NoSuchElementException');
    });
  });

  describe('script errors are 400s with KairosDB\'s message', () => {
    it('reports a syntax error with QuickJS\'s reason and the script\'s own line and column', async () => {
      const err = await appErrorOf(sandbox.mapPoints('var x = 1;\nx = ;\nreturn x', [1], [1]));
      expect(err.code).to.equal('SCRIPT_ERROR');
      expect(err.status).to.equal(400);
      expect(err.message).to.equal("Error during script execution, please check the syntax: SyntaxError: unexpected token in expression: ';' (line 2, column 5)");
    });

    it('locates an error on the first line in the script, not in the wrapper around it', async () => {
      const err = await appErrorOf(sandbox.mapPoints('value +* 2', [1], [1]));
      expect(err.message).to.match(/SyntaxError: .* \(line 1, column 8\)$/);
    });

    it('reports an exception the script throws, and where', async () => {
      const err = await appErrorOf(sandbox.mapPoints('if (value > 1) {\n  throw new RangeError("too big");\n}\nreturn value', [1, 2], [1, 2]));
      expect(err.code).to.equal('SCRIPT_ERROR');
      expect(err.message).to.match(/^Error during script execution, please check the syntax: RangeError: too big \(line 2, column \d+\)$/);
    });

    it('reports a thrown non-error value', async () => {
      const err = await appErrorOf(sandbox.mapPoints('throw "nope"; return 1', [1], [1]));
      expect(err.message).to.equal('Error during script execution, please check the syntax: uncaught nope');
    });

    it('reports a reference to an unknown variable', async () => {
      const err = await appErrorOf(sandbox.mapPoints('valeu * 2', [1], [1]));
      expect(err.message).to.match(/^Error during script execution, please check the syntax: ReferenceError: .*valeu/);
    });

    it('rejects a result that is not a number with the module\'s message', async () => {
      for (const [script, type] of [['"7"', 'string'], ['value > 1', 'boolean'], ['null', 'null'], ['undefined', 'undefined'], ['({})', 'object'], ['[value]', 'array']]) {
        const err = await appErrorOf(sandbox.mapPoints(script, [1], [1]));
        expect(err.code).to.equal('SCRIPT_ERROR');
        expect(err.message).to.equal(`Script result should be number, got ${type}`);
      }
    });

    it('takes a body without a return as the module does: an expression, hence a syntax error', async () => {
      const err = await appErrorOf(sandbox.mapPoints('var x = value * 2; x', [1], [1]));
      expect(err.message).to.match(/^Error during script execution, please check the syntax: SyntaxError/);
    });
  });

  describe('input limits', () => {
    it('refuses a script longer than maxScriptBytes before running anything', async () => {
      const small = createQuickJsSandbox({ maxScriptBytes: 16 });
      try {
        const err = await appErrorOf(small.mapPoints('value + 1 + 2 + 3 + 4', [1], [1]));
        expect(err.code).to.equal('SCRIPT_TOO_LONG');
        expect(err.status).to.equal(400);
        expect(err.message).to.equal('Script is 21 bytes long, over the limit of 16 bytes');
        expect(small.stats().jobs).to.equal(0);
      } finally {
        await small.close();
      }
    });

    it('refuses more points per call than maxPointsPerCall, counting all ranges of a js_range call', async () => {
      const small = createQuickJsSandbox({ maxPointsPerCall: 3 });
      try {
        const tooMany = await appErrorOf(small.mapPoints('value', [1, 2, 3, 4], [1, 2, 3, 4]));
        expect(tooMany.code).to.equal('SCRIPT_INPUT_TOO_LARGE');
        expect(tooMany.message).to.equal('Number of points in script call exceeds configured limit of 3');
        const ranges = [{ timestamps: [1, 2], values: [1, 2] }, { timestamps: [3, 4], values: [3, 4] }];
        expect((await appErrorOf(small.reduceRanges('return 1', ranges, false))).code).to.equal('SCRIPT_INPUT_TOO_LARGE');
        expect(await small.mapPoints('value', [1, 2, 3], [1, 2, 3])).to.deep.equal([1, 2, 3]);
      } finally {
        await small.close();
      }
    });
  });
});

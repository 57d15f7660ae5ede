import { expect } from 'chai';
import { SCRIPT_SANDBOX_LIMITS } from '../../../src/timeseries/sandbox/limits';
import { createQuickJsSandbox, QuickJsSandbox } from '../../../src/timeseries/sandbox/quickjs-sandbox';
import { appErrorOf } from './app-error-of';

/**
 * Issue 3: js_* scripts are untrusted code. Each test is an honest attempt to escape or exhaust the sandbox, and
 * must fail with a 400 while the sandbox keeps serving the next call.
 */

const LIMITS = { cpuTimeMs: 300, hardKillGraceMs: 300 } as const;
/** Slack for a loaded test machine on top of a deadline. */
const SLACK_MS = 700;

/** ECMAScript's own global properties (ECMA-262 §19 and Annex B), plus QuickJS's InternalError. */
const ECMASCRIPT_GLOBALS = new Set([
  'globalThis', 'Infinity', 'NaN', 'undefined', 'eval', 'isFinite', 'isNaN', 'parseFloat', 'parseInt', 'decodeURI',
  'decodeURIComponent', 'encodeURI', 'encodeURIComponent', 'escape', 'unescape', 'AggregateError', 'Array',
  'ArrayBuffer', 'BigInt', 'BigInt64Array', 'BigUint64Array', 'Boolean', 'DataView', 'Date', 'Error', 'EvalError',
  'FinalizationRegistry', 'Float16Array', 'Float32Array', 'Float64Array', 'Function', 'Int8Array', 'Int16Array',
  'Int32Array', 'Iterator', 'Map', 'Number', 'Object', 'Promise', 'Proxy', 'RangeError', 'ReferenceError', 'RegExp',
  'Set', 'SharedArrayBuffer', 'String', 'Symbol', 'SyntaxError', 'TypeError', 'Uint8Array', 'Uint8ClampedArray',
  'Uint16Array', 'Uint32Array', 'URIError', 'WeakMap', 'WeakRef', 'WeakSet', 'Atomics', 'JSON', 'Math', 'Reflect',
  'InternalError',
]);

async function timed<T>(promise: Promise<T>): Promise<{ ms: number; outcome: Promise<T> }> {
  const started = Date.now();
  const outcome = promise.then((v) => v);
  await outcome.catch(() => undefined);
  return { ms: Date.now() - started, outcome };
}

describe('script sandbox: untrusted scripts cannot escape or exhaust it', () => {
  let sandbox: QuickJsSandbox;
  before(() => {
    sandbox = createQuickJsSandbox(LIMITS);
  });
  after(() => sandbox.close());
  afterEach(async () => {
    // Whatever the attempt did, the next call works.
    expect(await sandbox.mapPoints('value + 1', [1], [1])).to.deep.equal([2]);
  });

  describe('CPU time', () => {
    it('stops `while(true){}` at the deadline with a clear 400', async () => {
      const { ms, outcome } = await timed(sandbox.mapPoints('while(true){} return 1', [1], [1]));
      const err = await appErrorOf(outcome);
      expect(err.code).to.equal('SCRIPT_TIMEOUT');
      expect(err.status).to.equal(400);
      expect(err.message).to.equal('Script execution exceeded the time limit of 300 ms');
      expect(ms).to.be.at.least(LIMITS.cpuTimeMs - 5).and.below(LIMITS.cpuTimeMs + SLACK_MS);
    });

    it('stops an endless loop that swallows every exception', async () => {
      const script = 'for (;;) { try { while (true) {} } catch (e) {} } return 1';
      const err = await appErrorOf(sandbox.mapPoints(script, [1], [1]));
      expect(err.code).to.equal('SCRIPT_TIMEOUT');
    });

    it('stops catastrophic regular-expression backtracking', async () => {
      const err = await appErrorOf(sandbox.filterPoints('/(a+)+$/.test("a".repeat(40) + "b")', [1], [1]));
      expect(err.code).to.equal('SCRIPT_TIMEOUT');
    });

    it('counts the whole call, not each point: a slow script over many points times out', async () => {
      const n = 10_000;
      const ts = Array.from({ length: n }, (_, i) => i);
      const err = await appErrorOf(sandbox.mapPoints('var s = 0; for (var i = 0; i < 1e5; i++) s += i; return s', ts, ts));
      expect(err.code).to.equal('SCRIPT_TIMEOUT');
    });

    it('terminates the sandbox thread when a loop of long native builtins outruns the interrupt check', async () => {
      // QuickJS checks its deadline every ~10k branches; each of these does ~15 ms of native work in between.
      const restartsBefore = sandbox.stats().restarts;
      const { ms, outcome } = await timed(sandbox.mapPoints('while (true) Array(1e6).fill(0); return 1', [1], [1]));
      const err = await appErrorOf(outcome);
      expect(err.code).to.equal('SCRIPT_TIMEOUT');
      expect(ms).to.be.below(LIMITS.cpuTimeMs + LIMITS.hardKillGraceMs + SLACK_MS);
      expect(sandbox.stats().restarts).to.equal(restartsBefore + 1);
    });

    it('keeps to the default deadline of 1000 ms', async () => {
      const defaults = createQuickJsSandbox();
      try {
        const { ms, outcome } = await timed(defaults.mapPoints('while(true){} return 1', [1], [1]));
        expect((await appErrorOf(outcome)).code).to.equal('SCRIPT_TIMEOUT');
        expect(ms).to.be.at.least(SCRIPT_SANDBOX_LIMITS.cpuTimeMs - 5).and.below(SCRIPT_SANDBOX_LIMITS.cpuTimeMs + SLACK_MS);
      } finally {
        await defaults.close();
      }
    });
  });

  describe('memory', () => {
    // Time enough for every bomb to reach the memory limit first.
    let roomy: QuickJsSandbox;
    before(() => {
      roomy = createQuickJsSandbox({ cpuTimeMs: 5000 });
    });
    after(() => roomy.close());

    for (const [what, script] of [
      ['arrays', 'let a=[];while(1)a.push(new Array(1e6).fill(0)); return 1'],
      ['typed arrays, which QuickJS\'s own memory limit does not count', 'let a=[];while(1)a.push(new Float64Array(1e6)); return 1'],
      ['strings', 'let a=[];while(1)a.push("x".repeat(1e6) + a.length); return 1'],
      ['objects', 'let a=[];for(let i=0;;i++)a.push({i:i, s:"k"+i}); return 1'],
    ]) {
      it(`stops a memory bomb of ${what} with a clear 400`, async () => {
        const err = await appErrorOf(roomy.mapPoints(script, [1], [1]));
        expect(err.code).to.equal('SCRIPT_MEMORY_LIMIT');
        expect(err.status).to.equal(400);
        expect(err.message).to.equal('Script execution ran out of memory: the limit is 32 MiB per call, on top of the points it is given');
      });
    }

    it('stops the bomb of issue 3, `let a=[];while(1)a.push(new Array(1e6))`, by memory or by time', async () => {
      const err = await appErrorOf(sandbox.mapPoints('let a=[];while(1)a.push(new Array(1e6)); return 1', [1], [1]));
      expect(['SCRIPT_MEMORY_LIMIT', 'SCRIPT_TIMEOUT']).to.include(err.code);
    });

    it('gives every call a fresh WebAssembly memory: after a bomb, the next call starts at the base size again', async () => {
      await appErrorOf(roomy.mapPoints('let a=[];while(1)a.push(new Float64Array(1e6)); return 1', [1], [1]));
      const afterBomb = roomy.stats().wasmMemoryBytes;
      await roomy.mapPoints('value', [1], [1]);
      expect(roomy.stats().wasmMemoryBytes).to.equal(16 * 1024 * 1024);
      expect(afterBomb).to.be.above(32 * 1024 * 1024);
    });

    it('does not grow the process\'s memory over many calls', async function () {
      this.timeout(30_000);
      const points = Array.from({ length: 10_000 }, (_, i) => i);
      const run = async (calls: number) => {
        for (let i = 0; i < calls; i++) {
          await roomy.mapPoints(`var a = []; for (var i = 0; i < ${5000 + i}; i++) a.push({ v: value + i }); return a.length`, [1], [1]);
          if (i % 10 === 0) await roomy.reduceRanges('return valueArray.slice()', [{ timestamps: points, values: points }], true);
        }
      };
      await run(30);
      const warm = process.memoryUsage().rss;
      await run(200);
      expect(process.memoryUsage().rss - warm).to.be.below(64 * 1024 * 1024);
    });
  });

  describe('stack', () => {
    it('stops unbounded recursion with a clear 400', async () => {
      const err = await appErrorOf(sandbox.mapPoints('function f(n) { return f(n + 1) + 1 } return f(0)', [1], [1]));
      expect(err.code).to.equal('SCRIPT_STACK_OVERFLOW');
      expect(err.status).to.equal(400);
      expect(err.message).to.equal('Script execution exceeded the stack limit of 256 KiB (recursion too deep)');
    });

    it('stops recursion through getters, Proxy traps and callbacks', async () => {
      for (const script of [
        'var o = { get x() { return this.x } }; return o.x',
        'var p = new Proxy({}, { get: function (t, k, r) { return r[k] } }); return p.x',
        'function f() { return [1].map(f) } return f()',
      ]) {
        expect((await appErrorOf(sandbox.mapPoints(script, [1], [1]))).code).to.equal('SCRIPT_STACK_OVERFLOW');
      }
    });

    it('stops deeply nested source and JSON', async () => {
      for (const script of [
        'return eval("(".repeat(1e5) + "1" + ")".repeat(1e5))',
        'return JSON.parse("[".repeat(1e5) + "]".repeat(1e5)).length',
        'var a = []; for (var i = 0; i < 1e5; i++) a = [a]; return String(a).length',
      ]) {
        expect((await appErrorOf(sandbox.mapPoints(script, [1], [1]))).code).to.equal('SCRIPT_STACK_OVERFLOW');
      }
    });

    it('stops JSON.stringify of a deeply nested array, which is slow before it is deep', async () => {
      const script = 'var a = []; for (var i = 0; i < 1e5; i++) a = [a]; return JSON.stringify(a).length';
      expect(['SCRIPT_STACK_OVERFLOW', 'SCRIPT_TIMEOUT']).to.include((await appErrorOf(sandbox.mapPoints(script, [1], [1]))).code);
    });
  });

  describe('no access to the host', () => {
    for (const name of ['require', 'process', 'module', 'exports', 'fetch', 'XMLHttpRequest', 'WebSocket', 'setTimeout', 'setInterval', 'queueMicrotask', 'Buffer', 'console', 'std', 'os', 'WebAssembly', 'performance']) {
      it(`has no ${name}`, async () => {
        expect(await sandbox.mapPoints(`typeof ${name} === 'undefined' ? 1 : 0`, [1], [1])).to.deep.equal([1]);
      });
    }

    it('fails to call require, process or fetch', async () => {
      for (const script of ['require("fs").readFileSync("/etc/passwd").length', 'process.exit(1)', 'globalThis.process.env.HOME.length', 'fetch("http://example.com")']) {
        const err = await appErrorOf(sandbox.mapPoints(script, [1], [1]));
        expect(err.code).to.equal('SCRIPT_ERROR');
        expect(err.message).to.match(/(ReferenceError|TypeError)/);
      }
    });

    it('cannot import a module: import() gives a promise that never loads anything', async () => {
      expect((await appErrorOf(sandbox.mapPoints("import('fs')", [1], [1]))).message).to.equal('Script result should be number, got object');
      const err = await appErrorOf(sandbox.mapPoints("import fs from 'fs'; return 1", [1], [1]));
      expect(err.message).to.match(/SyntaxError/);
    });

    it('finds only ECMAScript builtins on the real global object, however it is reached', async () => {
      for (const global of ['globalThis', 'Function("return this")()', '(0, eval)("this")', '[].constructor.constructor("return this")()', '(function () { return this })()']) {
        const script = `var unknown = Object.getOwnPropertyNames(${global}).filter(function (k) { return !ALLOWED.has(k) });
          if (unknown.length) throw new Error("host globals: " + unknown.join()); return 1`;
        const allowed = `var ALLOWED = new Set(${JSON.stringify([...ECMASCRIPT_GLOBALS])});\n`;
        expect(await sandbox.mapPoints(allowed + script, [1], [1])).to.deep.equal([1]);
      }
    });
  });

  describe('no state between calls', () => {
    it('forgets globals a previous call set', async () => {
      await sandbox.mapPoints('globalThis.secret = value; return 0', [1], [42]);
      expect(await sandbox.mapPoints('typeof secret === "undefined" ? 1 : 0', [1], [1])).to.deep.equal([1]);
    });

    it('forgets builtins a previous call patched', async () => {
      await sandbox.mapPoints('Math.max = function () { return 7 }; Array.prototype.stolen = value; return 0', [1], [42]);
      expect(await sandbox.mapPoints('Math.max(1, 2) + ([].stolen === undefined ? 0 : 100)', [1], [1])).to.deep.equal([2]);
    });

    it('never sees the points of a previous call', async () => {
      await sandbox.reduceRanges('globalThis.kept = valueArray; return 0', [{ timestamps: [1, 2], values: [111, 222] }], false);
      const script = 'return [typeof kept, Object.getOwnPropertyNames(globalThis).length].length';
      expect(await sandbox.reduceRanges(script, [{ timestamps: [1], values: [1] }], false)).to.deep.equal([2]);
      expect(await sandbox.mapPoints('typeof kept === "undefined" ? value : -1', [1], [5])).to.deep.equal([5]);
    });

    it('gives a script tampering with the harness only a 400 about its own results', async () => {
      const script = 'Object.defineProperty(Array.prototype, "0", { set: function () {}, configurable: true }); return [1, 2]';
      const results = await sandbox.reduceRanges(script, [{ timestamps: [1], values: [1] }], true).catch((err: Error) => err);
      if (results instanceof Error) expect((await appErrorOf(Promise.reject(results))).status).to.equal(400);
      else expect(results).to.have.length(1);
    });
  });
});

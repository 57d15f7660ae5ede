/**
 * The JavaScript that runs inside QuickJS around the user's function: it reads the whole batch from one
 * ArrayBuffer, loops over it in QuickJS, checks each result and writes all results into one ArrayBuffer, so a call
 * crosses the wasm boundary twice whatever its size (issue 3: speed).
 *
 * It shares its context with the untrusted script, which can tamper with it (for example by patching a builtin
 * prototype). That can only spoil the script's own results, which the host decodes defensively (script-job.ts).
 * The builtins it needs are captured before the script is compiled.
 *
 * Layouts, all Float64 (timestamps are epoch milliseconds, exact in a double):
 * - input: timestamps[n], values[n], then for js_range the end index (exclusive) of each of the m ranges.
 * - output of `map`: results[n]; of `filter`: one byte per point, 1 = keep; of `reduce`: results[m], or with
 *   arrayResult, for each range its length followed by its numbers.
 *
 * A wrong result type throws an error named ScriptResultError, whose message is KairosDB's
 * (`Script result should be number, got <type>`); the host passes that message on as is.
 */
export const RESULT_ERROR_NAME = 'ScriptResultError';

export const HARNESS_SOURCE = String.raw`(function () {
  'use strict';
  var F64 = Float64Array, U8 = Uint8Array, ArrayCtor = Array, isArray = Array.isArray, trunc = Math.trunc;
  var defineProperty = Object.defineProperty, TypeErrorCtor = TypeError, RangeErrorCtor = RangeError;
  var iteratorSymbol = Symbol.iterator;

  function typeName(x) { return x === null ? 'null' : isArray(x) ? 'array' : typeof x; }
  function resultError(expected, got) {
    var e = new TypeErrorCtor('Script result should be ' + expected + ', got ' + typeName(got));
    e.name = '${RESULT_ERROR_NAME}';
    return e;
  }

  // A point as the module's scripts know it (org.kairosdb.core.DataPoint), plus plain fields. The embedded store
  // keeps every value as a double. Points are object literals over one prototype: the fastest shape in QuickJS.
  var POINT = {
    getTimestamp: function () { return this.timestamp; },
    getDoubleValue: function () { return this.value; },
    getLongValue: function () { return trunc(this.value); },
    isDouble: function () { return true; },
    isLong: function () { return false; },
  };
  function point(timestamp, value) { return { __proto__: POINT, timestamp: timestamp, value: value }; }

  // js_range's 'values': a java.util.Iterator of DataPoint (hasNext/next) that is also a JS iterable.
  function pointIterator(ts, vs, from, to) {
    var i = from;
    return {
      hasNext: function () { return i < to; },
      next: function () {
        if (i >= to) throw new RangeErrorCtor('NoSuchElementException: no more points in this range');
        var k = i++;
        return point(ts[k], vs[k]);
      },
      __proto__: ITERABLE,
    };
  }
  // for…of over 'values' walks the same cursor as hasNext()/next().
  var ITERABLE = {};
  ITERABLE[iteratorSymbol] = function () {
    var it = this;
    return { next: function () { return it.hasNext() ? { value: it.next(), done: false } : { value: undefined, done: true }; } };
  };

  // js_range's 'valueArray': a plain array of the values, which also answers the module's java.util.List calls
  // (size(), get(i) -> DataPoint).
  function valueArrayOf(ts, vs, from, to) {
    var n = to - from, a = new ArrayCtor(n);
    for (var i = 0; i < n; i++) a[i] = vs[from + i];
    defineProperty(a, 'size', { value: function () { return n; } });
    defineProperty(a, 'get', { value: function (k) {
      if (k !== trunc(k) || k < 0 || k >= n) throw new RangeErrorCtor('Index ' + k + ' out of bounds for length ' + n);
      return point(ts[from + k], vs[from + k]);
    } });
    return a;
  }

  function mapPoints(f, input, n) {
    var ts = new F64(input, 0, n), vs = new F64(input, n * 8, n), out = new F64(n);
    for (var i = 0; i < n; i++) {
      var r = f(vs[i], ts[i]);
      if (typeof r !== 'number') throw resultError('number', r);
      out[i] = r;
    }
    return out.buffer;
  }

  // The module casts the predicate's result to Boolean: anything else is an error, not a truthiness test.
  function filterPoints(f, input, n) {
    var ts = new F64(input, 0, n), vs = new F64(input, n * 8, n), out = new U8(n);
    for (var i = 0; i < n; i++) {
      var r = f(vs[i], ts[i]);
      if (typeof r !== 'boolean') throw resultError('boolean', r);
      out[i] = r ? 1 : 0;
    }
    return out.buffer;
  }

  function reduceRanges(f, input, n, m, arrayResult) {
    var ts = new F64(input, 0, n), vs = new F64(input, n * 8, n), ends = new F64(input, n * 16, m);
    var from = 0, r, to, res;
    if (!arrayResult) {
      var out = new F64(m);
      for (r = 0; r < m; r++, from = to) {
        to = ends[r] | 0;
        res = f(pointIterator(ts, vs, from, to), valueArrayOf(ts, vs, from, to));
        if (typeof res !== 'number') throw resultError('number', res);
        out[r] = res;
      }
      return out.buffer;
    }
    var arrays = new ArrayCtor(m), total = m;
    for (r = 0; r < m; r++, from = to) {
      to = ends[r] | 0;
      res = f(pointIterator(ts, vs, from, to), valueArrayOf(ts, vs, from, to));
      if (!isArray(res)) throw resultError('an array of numbers', res);
      var len = res.length, copy = new F64(len);
      for (var j = 0; j < len; j++) {
        var x = res[j];
        if (typeof x !== 'number') throw resultError('number', x);
        copy[j] = x;
      }
      arrays[r] = copy;
      total += len;
    }
    var flat = new F64(total), at = 0;
    for (r = 0; r < m; r++) {
      flat[at++] = arrays[r].length;
      flat.set(arrays[r], at);
      at += arrays[r].length;
    }
    return flat.buffer;
  }

  return function (kind, f, input, n, m, arrayResult) {
    if (kind === 'map') return mapPoints(f, input, n);
    if (kind === 'filter') return filterPoints(f, input, n);
    return reduceRanges(f, input, n, m, arrayResult);
  };
})()`;

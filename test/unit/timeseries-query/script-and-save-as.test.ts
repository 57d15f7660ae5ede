import { expect } from 'chai';
import { AppError } from '../../../src/core/errors';
import { ScriptSandbox } from '../../../src/timeseries/query';
import { MemorySeriesSource } from '../../helpers/memory-series-source';
import { query, runErrorsOf, valuesOf } from '../../helpers/kairos-query';

/**
 * js_function, js_filter and js_range through the ScriptSandbox port (reference §6.5), and save_as (§6.2).
 * The sandbox here is a stand-in that knows a few scripts by heart; the real one is tested with its own code.
 */

type PointFn = (value: number, timestamp: number) => number | boolean;
const KNOWN: Record<string, PointFn> = {
  'value * 3.0': (v) => v * 3,
  'value > 5': (v) => v > 5,
  'return timestamp': (_v, t) => t,
};

function knownScripts(calls: string[] = []): ScriptSandbox {
  const fn = (script: string): PointFn => {
    calls.push(script);
    const f = KNOWN[script];
    if (f === undefined) throw new AppError('SCRIPT_ERROR', 'Error during script execution, please check the syntax');
    return f;
  };
  return {
    mapPoints: async (script, ts, values) => { const f = fn(script); return values.map((v, i) => f(v, ts[i]) as number); },
    filterPoints: async (script, ts, values) => { const f = fn(script); return values.map((v, i) => f(v, ts[i]) as boolean); },
    reduceRanges: async (script, ranges, arrayResult) => {
      calls.push(script);
      if (script === 'sum') return ranges.map((r) => r.values.reduce((a, b) => a + b, 0));
      if (script === 'minmax' && arrayResult) return ranges.map((r) => [Math.min(...r.values), Math.max(...r.values)]);
      if (script === 'text') return ranges.map(() => 'x' as unknown as number);
      throw new AppError('SCRIPT_ERROR', 'Error during script execution, please check the syntax');
    },
  };
}

const source = () => new MemorySeriesSource().withSeries('m', { attr: 'temp' }, [[1000, 2], [2000, 6], [3000, 10], [61_000, 1]]);
const body = (aggregators: Record<string, unknown>[]) => ({ start_absolute: 0, end_absolute: 100_000, metrics: [{ name: 'm', aggregators }] });

describe('script aggregators (reference §6.5)', () => {
  it('js_function replaces each value, at the same time, in one sandbox call per group', async () => {
    const calls: string[] = [];
    const response = await query(source(), body([{ name: 'js_function', script: 'value * 3.0' }]), { sandbox: knownScripts(calls) });
    expect(valuesOf(response)).to.deep.equal([[1000, 6], [2000, 18], [3000, 30], [61_000, 3]]);
    expect(calls).to.deep.equal(['value * 3.0']);
  });

  it('js_filter KEEPS the points whose predicate is true (the opposite of filter)', async () => {
    const response = await query(source(), body([{ name: 'js_filter', script: 'value > 5' }]), { sandbox: knownScripts() });
    expect(valuesOf(response)).to.deep.equal([[2000, 6], [3000, 10]]);
  });

  it('js_range gives one result per bucket at the bucket time, or an array with array_result', async () => {
    const minute = { value: 1, unit: 'minutes' };
    const sums = await query(source(), body([{ name: 'js_range', script: 'sum', sampling: minute }]), { sandbox: knownScripts() });
    expect(valuesOf(sums)).to.deep.equal([[1000, 18], [61_000, 1]]);
    const arrays = await query(source(), body([{ name: 'js_range', script: 'minmax', array_result: true, allocate_array: true, sampling: minute, align_start_time: true }]), { sandbox: knownScripts() });
    expect(valuesOf(arrays)).to.deep.equal([[0, 2, 10], [60_000, 1, 1]]);
    expect(JSON.stringify(valuesOf(arrays))).to.equal('[[0,2,10],[60000,1,1]]');
  });

  it('turns a script failure into a 400 with the sandbox message', async () => {
    expect(await runErrorsOf(source(), body([{ name: 'js_function', script: 'syntax error(' }]), knownScripts()))
      .to.deep.equal(['Error during script execution, please check the syntax']);
  });

  it('refuses a js_range result that is not a number', async () => {
    expect(await runErrorsOf(source(), body([{ name: 'js_range', script: 'text', sampling: { value: 1, unit: 'minutes' } }]), knownScripts()))
      .to.deep.equal(['Script result should be number, got string']);
  });

  it('requires a script', async () => {
    expect(await runErrorsOf(source(), body([{ name: 'js_filter' }]), knownScripts())).to.deep.equal(['query.metric[0].aggregators[0].script may not be null']);
  });
});

describe('save_as (reference §6.2)', () => {
  it('passes the points through and writes them with saved_from and the single-valued tag-group tags', async () => {
    const store = new MemorySeriesSource()
      .withSeries('dev-1', { attr: 'temp', room: 'a' }, [[1000, 20], [2000, 22]])
      .withSeries('dev-1', { attr: 'temp', room: 'b' }, [[1500, 30]]);
    const response = await query(store, {
      start_absolute: 0, end_absolute: 10_000,
      metrics: [{ name: 'dev-1', group_by: [{ name: 'tag', tags: ['attr'] }], aggregators: [{ name: 'save_as', metric_name: 'copy', tags: { kind: 'rollup' }, ttl: 60 }] }],
    });
    expect(valuesOf(response)).to.deep.equal([[1000, 20], [1500, 30], [2000, 22]]);
    expect(store.written).to.have.length(1);
    expect(store.written[0].map((p) => [p.metric, p.timestamp, p.value])).to.deep.equal([['copy', 1000, 20], ['copy', 1500, 30], ['copy', 2000, 22]]);
    // room has two values in the group and is not a group-by tag: it is not kept.
    expect(store.written[0][0].tags).to.deep.equal({ kind: 'rollup', saved_from: 'dev-1', attr: 'temp' });
  });

  it('leaves saved_from out with add_saved_from false', async () => {
    const store = new MemorySeriesSource().withSeries('dev-1', { attr: 'temp' }, [[1000, 20]]);
    await query(store, { start_absolute: 0, end_absolute: 10_000, metrics: [{ name: 'dev-1', aggregators: [{ name: 'save_as', metric_name: 'copy', add_saved_from: false, tags: { k: 'v' } }] }] });
    expect(store.written[0][0].tags).to.deep.equal({ k: 'v' });
  });

  it('refuses tags that repeat a tag of a tag grouper, or saved_from, as KairosDB refuses them (Multiple entries with same key)', async () => {
    const store = new MemorySeriesSource().withSeries('dev-1', { attr: 'temp' }, [[1000, 20]]);
    const grouped = (tags: Record<string, string>, extra: Record<string, unknown> = {}) => ({
      start_absolute: 0, end_absolute: 10_000,
      metrics: [{ name: 'dev-1', group_by: [{ name: 'tag', tags: ['room', 'attr'] }], aggregators: [{ name: 'save_as', metric_name: 'copy', tags, ...extra }] }],
    });

    expect(await runErrorsOf(store, grouped({ attr: 'x' }))).to.deep.equal([
      'query.metric[0].aggregators[0].tags.attr repeats a tag of the tag group_by: KairosDB refuses it (Multiple entries with same key)',
    ]);
    expect(await runErrorsOf(store, grouped({ saved_from: 'x' }))).to.deep.equal([
      'query.metric[0].aggregators[0].tags.saved_from repeats the tag add_saved_from adds: KairosDB refuses it (Multiple entries with same key)',
    ]);
    await query(store, grouped({ saved_from: 'x' }, { add_saved_from: false }));
    expect(store.written).to.have.length(1);
  });

  it('requires metric_name before running', async () => {
    expect(await runErrorsOf(new MemorySeriesSource(), { start_absolute: 0, end_absolute: 1, metrics: [{ name: 'm', aggregators: [{ name: 'save_as' }] }] }))
      .to.deep.equal(['query.metric[0].aggregators[0].metric_name may not be null']);
  });
});

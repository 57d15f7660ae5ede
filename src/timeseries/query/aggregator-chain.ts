import { PointWriter } from '../port';
import { diff, filter, mapValues, rate, sma, trim } from './point-aggregators';
import { PointStream, StreamBuilder } from './point-stream';
import { AggregatorSpec, RangeOptions } from './query-model';
import { QueryRun } from './query-run';
import { bucketing, forEachBucket, markGaps } from './range-buckets';
import * as reducers from './range-reducers';
import { saveAs } from './save-as';
import { jsFilter, jsFunction, jsRange } from './script-aggregators';
import { ScriptSandbox } from './script-port';

/**
 * Runs a group's aggregators in array order, each on the previous one's output (reference §4.5 step 2, §6.3).
 * The chain tracks the group type: an aggregator that cannot take it is skipped silently. Only count, gaps,
 * filter, trim and save_as take any type; the rest need `number`. A js_range with array_result makes `array`.
 */

export interface ChainContext {
  readonly sandbox: ScriptSandbox;
  readonly writer: PointWriter;
  readonly metric: string;
  /** The group's tags (for save_as). */
  readonly groupTags: ReadonlyMap<string, readonly string[]>;
  /** The query's run: its budgets, pacing and caller. Absent: a run of its own with the default budgets. */
  readonly run?: QueryRun;
}

/** The context with its run. */
type RunContext = ChainContext & { readonly run: QueryRun };

type GroupType = 'number' | 'array';

const ANY_TYPE = new Set<AggregatorSpec['name']>(['count', 'gaps', 'filter', 'trim', 'save_as']);

export async function runAggregators(
  input: PointStream, aggregators: readonly AggregatorSpec[], ctx: ChainContext,
): Promise<PointStream> {
  const run = ctx.run ?? new QueryRun();
  try {
    let stream = input;
    let type: GroupType = 'number';
    for (const aggregator of aggregators) {
      if (type !== 'number' && !ANY_TYPE.has(aggregator.name)) continue;
      await run.pace();
      stream = await runOne(stream, aggregator, { ...ctx, run });
      if (aggregator.name === 'js_range' && aggregator.arrayResult) type = 'array';
      else if (aggregator.name === 'count') type = 'number';
      else if (!ANY_TYPE.has(aggregator.name)) type = 'number';
    }
    return stream;
  } finally {
    if (ctx.run === undefined) run.finish();
  }
}

async function runOne(s: PointStream, a: AggregatorSpec, ctx: RunContext): Promise<PointStream> {
  const { run } = ctx;
  switch (a.name) {
    case 'avg': return reduce(s, a.range, reducers.avg, run);
    case 'count': return reduce(s, a.range, reducers.count, run);
    case 'sum': return reduce(s, a.range, reducers.sum, run);
    case 'min': return reduce(s, a.range, reducers.min, run);
    case 'max': return reduce(s, a.range, reducers.max, run);
    case 'first': return reduce(s, a.range, reducers.first, run);
    case 'last': return reduce(s, a.range, reducers.last(a.range.alignStartTime || a.range.alignEndTime), run);
    case 'dev': return reduce(s, a.range, reducers.dev(a.returnType, a.devCount), run);
    case 'percentile': return reduce(s, a.range, reducers.percentile(a.percentile), run);
    case 'least_squares': return reduce(s, a.range, reducers.leastSquares, run);
    case 'gaps': return markGaps(s, a.range, run);
    case 'diff': return diff(s);
    case 'div': return mapValues(s, (v) => v / a.divisor);
    case 'scale': return mapValues(s, (v) => v * a.factor);
    case 'rate':
    case 'sampler': return rate(s, a.name, a.sampling, a.timeZone, run);
    case 'sma': return sma(s, a.size, run);
    case 'trim': return trim(s, a.trim);
    case 'filter': return filter(s, a.op, a.threshold);
    case 'save_as': return saveAs(s, a, { metric: ctx.metric, tags: ctx.groupTags }, ctx.writer);
    case 'js_function': return jsFunction(s, a.script, ctx.sandbox, run);
    case 'js_filter': return jsFilter(s, a.script, ctx.sandbox, run);
    case 'js_range': return jsRange(s, a.range, a.script, a.arrayResult, ctx.sandbox, run);
  }
}

async function reduce(s: PointStream, range: RangeOptions, reducer: reducers.Reducer, run: QueryRun): Promise<PointStream> {
  const out = new StreamBuilder(Math.min(s.ts.length, 1024));
  await forEachBucket(s, bucketing(range), run, (from, to, time) => reducer(s, from, to, time, out));
  return out.finish();
}

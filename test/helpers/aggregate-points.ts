import { runAggregators } from '../../src/timeseries/query/aggregator-chain';
import { formatValues } from '../../src/timeseries/query/format-result';
import { validateQuery, ScriptSandbox, ValuePoint } from '../../src/timeseries/query';
import { noScripts } from './kairos-query';
import { MemorySeriesSource } from './memory-series-source';

/**
 * Runs an aggregator chain on points in exactly the given order, as KairosDB's aggregator unit tests feed their
 * ListDataPointGroup (no merge, no sort). The aggregators go through validation like any query's.
 */
export async function aggregate(
  points: readonly (readonly [number, number])[],
  aggregators: Record<string, unknown>[],
  options: { start?: number; end?: number; now?: number; timeZone?: string; sandbox?: ScriptSandbox; writer?: MemorySeriesSource } = {},
): Promise<ValuePoint[]> {
  const start = options.start ?? 0;
  const end = options.end ?? Math.max(start + 1, ...points.map(([t]) => t));
  const q = validateQuery({
    start_absolute: start, end_absolute: end, ...(options.timeZone ? { time_zone: options.timeZone } : {}),
    metrics: [{ name: 'm', aggregators }],
  }, options.now ?? end + 1);
  const stream = { ts: Float64Array.from(points, ([t]) => t), vals: Float64Array.from(points, ([, v]) => v) };
  const out = await runAggregators(stream, q.metrics[0].aggregators, {
    sandbox: options.sandbox ?? noScripts,
    writer: options.writer ?? new MemorySeriesSource(),
    metric: 'm',
    groupTags: new Map(),
  });
  return formatValues(out);
}

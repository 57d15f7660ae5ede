import { ChainContext, runAggregators } from './aggregator-chain';
import { formatValues } from './format-result';
import { PointStream, StreamBuilder } from './point-stream';
import { AggregatorSpec } from './query-model';
import { ValuePoint } from './query-response';

/**
 * Runs an aggregator chain over one group's values as a response carries them, and returns the values the chain
 * makes. The KairosDB adapter runs here the aggregators KairosDB lacks (histogram, js_*: reference §6.5) over the
 * groups KairosDB returned; the chain is the engine's own (runAggregators), so it behaves as in executeQuery.
 * `[t, null]` is a null point of gaps, `[t, v1, v2, ...]` an array point of js_range (format-result.ts).
 */
export async function aggregateValues(
  values: readonly ValuePoint[], aggregators: readonly AggregatorSpec[], ctx: ChainContext,
): Promise<ValuePoint[]> {
  return formatValues(await runAggregators(streamOf(values), aggregators, ctx));
}

function streamOf(values: readonly ValuePoint[]): PointStream {
  const out = new StreamBuilder(values.length);
  for (const [t, ...rest] of values) {
    if (rest.length > 1) out.pushArray(t, rest.map((v) => v ?? NaN));
    else if (rest[0] === null || rest[0] === undefined) out.pushNull(t);
    else out.push(t, rest[0]);
  }
  return out.finish();
}

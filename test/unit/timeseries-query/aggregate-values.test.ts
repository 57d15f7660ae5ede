import { expect } from 'chai';
import { aggregateValues, executeQuery, validateQuery } from '../../../src/timeseries/query';
import { LATER, noScripts } from '../../helpers/kairos-query';
import { MemorySeriesSource } from '../../helpers/memory-series-source';

const T0 = Date.UTC(2024, 0, 1);
const MINUTE = 60_000;

/**
 * aggregateValues is the seam the KairosDB adapter uses: a chain split anywhere must give what the whole chain gives
 * when the first part's output is fed to the second part.
 */
describe('aggregateValues: the rest of a chain over values another engine returned', () => {
  const source = new MemorySeriesSource()
    .withSeries('m', { host: 'a' }, Array.from({ length: 90 }, (_, i): [number, number] => [T0 + i * MINUTE, (i * 7) % 23]))
    .withSeries('m', { host: 'b' }, Array.from({ length: 40 }, (_, i): [number, number] => [T0 + i * 2 * MINUTE, i / 3]));
  const chains: [string, Record<string, unknown>[]][] = [
    ['sum | avg', [{ name: 'sum', sampling: { value: 5, unit: 'minutes' } }, { name: 'avg', sampling: { value: 1, unit: 'hours' } }]],
    ['max | diff | filter', [{ name: 'max', sampling: { value: 10, unit: 'minutes' } }, { name: 'diff' }, { name: 'filter', filter_op: 'lt', threshold: 0 }]],
    ['gaps | count', [{ name: 'gaps', sampling: { value: 30, unit: 'seconds' } }, { name: 'count', sampling: { value: 10, unit: 'minutes' } }]],
    ['scale | percentile', [{ name: 'scale', factor: 2 }, { name: 'percentile', percentile: 0.3, sampling: { value: 20, unit: 'minutes' } }]],
  ];

  for (const [label, aggregators] of chains) {
    it(`splits ${label} anywhere without changing the answer`, async () => {
      const run = (aggs: unknown[]) => {
        const body = { start_absolute: T0, end_absolute: T0 + 100 * MINUTE, metrics: [{ name: 'm', group_by: [{ name: 'tag', tags: ['host'] }], aggregators: aggs }] };
        return executeQuery(validateQuery(body, LATER), { source, writer: source, sandbox: noScripts });
      };
      const whole = await run(aggregators);
      const specs = validateQuery({ start_absolute: T0, end_absolute: T0 + 100 * MINUTE, metrics: [{ name: 'm', aggregators }] }, LATER).metrics[0].aggregators;
      for (let cut = 0; cut <= aggregators.length; cut++) {
        const head = await run(aggregators.slice(0, cut));
        const results = await Promise.all(head.queries[0].results.map((r) =>
          aggregateValues(r.values, specs.slice(cut), { sandbox: noScripts, writer: source, metric: 'm', groupTags: new Map() })));
        expect(results, `cut at ${cut}`).to.deep.equal(whole.queries[0].results.map((r) => r.values));
      }
    });
  }

  it('reads [t, null] as a null point of gaps, which reading aggregators refuse', async () => {
    const spec = validateQuery({ start_absolute: 0, metrics: [{ name: 'm', aggregators: [{ name: 'sum' }] }] }, LATER).metrics[0].aggregators;
    let error: unknown;
    await aggregateValues([[1, 2], [2, null]], spec, { sandbox: noScripts, writer: source, metric: 'm', groupTags: new Map() }).catch((err) => (error = err));
    expect(error).to.have.property('errors').that.deep.equals(['No aggregator can be chained after org.kairosdb.core.aggregator.DataGapsMarkingAggregator']);
  });
});

import type { Metric, MetricObjectWithValues, MetricValue, MetricValueWithName, Registry } from 'prom-client';

export interface RequestMetricsOptions {
  counter: { name: string; help: string };
  histogram: { name: string; help: string; buckets: readonly number[] };
}

/** One label set's figures, counted as plain numbers. */
interface Series {
  readonly labels: Readonly<Record<string, string>>;
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); the last slot is above the largest bound. */
  readonly perBucket: number[];
}

export interface RequestMetrics {
  /** Counts one request and its duration, in the series of `key` (made with `labels()` the first time). */
  observe(key: string, labels: () => Record<string, string>, seconds: number): void;
}

/**
 * A request counter and a latency histogram over the same label sets, exposed in prom-client's registry exactly as
 * a Counter and a Histogram would be. prom-client hashes the labels of every observation (and again for the
 * histogram's child); the HTTP path counts every request, so here a series is found once by a caller-made key and
 * then updated with plain arithmetic (issue 12: cheap metrics per request). The text is made at scrape time.
 */
export function registerRequestMetrics(registry: Registry, options: RequestMetricsOptions): RequestMetrics {
  const bounds = options.histogram.buckets;
  let series = new Map<string, Series>();

  const counter = {
    name: options.counter.name,
    help: options.counter.help,
    type: 'counter',
    aggregator: 'sum',
    async get(): Promise<MetricObjectWithValues<MetricValue<string>>> {
      const values = [...series.values()].map((s) => ({ labels: { ...s.labels }, value: s.count }));
      return { name: counter.name, help: counter.help, type: 'counter', aggregator: 'sum', values } as never;
    },
    reset() {
      series = new Map();
    },
  };

  const histogram = {
    name: options.histogram.name,
    help: options.histogram.help,
    type: 'histogram',
    aggregator: 'sum',
    async get(): Promise<MetricObjectWithValues<MetricValueWithName<string>>> {
      const name = histogram.name;
      const values: MetricValueWithName<string>[] = [];
      for (const s of series.values()) {
        let cumulative = 0;
        bounds.forEach((le, i) => {
          cumulative += s.perBucket[i];
          values.push({ metricName: `${name}_bucket`, labels: { ...s.labels, le }, value: cumulative });
        });
        values.push({ metricName: `${name}_bucket`, labels: { ...s.labels, le: '+Inf' }, value: s.count });
        values.push({ metricName: `${name}_sum`, labels: { ...s.labels }, value: s.sum });
        values.push({ metricName: `${name}_count`, labels: { ...s.labels }, value: s.count });
      }
      return { name, help: histogram.help, type: 'histogram', aggregator: 'sum', values } as never;
    },
    reset: counter.reset,
  };

  registry.registerMetric(counter as unknown as Metric);
  registry.registerMetric(histogram as unknown as Metric);

  return {
    observe(key, labels, seconds) {
      let s = series.get(key);
      if (!s) {
        s = { labels: labels(), count: 0, sum: 0, perBucket: new Array<number>(bounds.length + 1).fill(0) };
        series.set(key, s);
      }
      s.count++;
      s.sum += seconds;
      let i = 0;
      while (i < bounds.length && seconds > bounds[i]) i++;
      s.perBucket[i]++;
    },
  };
}

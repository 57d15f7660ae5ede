import { Point, StoredSeries, TagFilter } from '../../src/timeseries/point';
import { PointWriter, SeriesSource } from '../../src/timeseries/port';

interface MemorySeries {
  readonly metric: string;
  readonly tags: Readonly<Record<string, string>>;
  /** timestamp -> value; a second write at the same time replaces the value (KairosDB's upsert). */
  readonly points: Map<number, number>;
}

/**
 * An in-memory SeriesSource and PointWriter for the query engine's tests: the port's contract, nothing more.
 * `withSeries` reads as a fixture: `new MemorySeriesSource().withSeries('m', {host: 'a'}, [[1, 10], [2, 20]])`.
 */
export class MemorySeriesSource implements SeriesSource, PointWriter {
  private readonly series = new Map<string, MemorySeries>();
  /** Every batch written through writePoints, in order (save_as tests look here). */
  readonly written: Point[][] = [];

  withSeries(metric: string, tags: Record<string, string>, points: readonly (readonly [number, number])[]): this {
    const s = this.seriesOf(metric, tags);
    for (const [timestamp, value] of points) s.points.set(timestamp, value);
    return this;
  }

  async writePoints(points: readonly Point[]): Promise<void> {
    this.written.push([...points]);
    for (const p of points) this.seriesOf(p.metric, p.tags).points.set(p.timestamp, p.value);
  }

  async readSeries(metric: string, filter: TagFilter, start: number, end: number): Promise<StoredSeries[]> {
    const out: StoredSeries[] = [];
    for (const s of this.series.values()) {
      if (s.metric !== metric || !matches(s.tags, filter)) continue;
      const times = [...s.points.keys()].filter((t) => t >= start && t <= end).sort((a, b) => a - b);
      if (times.length === 0) continue;
      out.push({ tags: s.tags, timestamps: Float64Array.from(times), values: Float64Array.from(times, (t) => s.points.get(t)!) });
    }
    return out;
  }

  async metricNames(prefix = ''): Promise<string[]> {
    return [...new Set([...this.series.values()].map((s) => s.metric))].filter((m) => m.startsWith(prefix)).sort();
  }

  async tagsOf(metric: string): Promise<Record<string, string[]>> {
    const tags = new Map<string, Set<string>>();
    for (const s of this.series.values()) {
      if (s.metric !== metric) continue;
      for (const [k, v] of Object.entries(s.tags)) tags.set(k, (tags.get(k) ?? new Set()).add(v));
    }
    return Object.fromEntries([...tags].map(([k, v]) => [k, [...v].sort()]));
  }

  private seriesOf(metric: string, tags: Readonly<Record<string, string>>): MemorySeries {
    const key = JSON.stringify([metric, Object.entries(tags).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
    let s = this.series.get(key);
    if (s === undefined) {
      s = { metric, tags: { ...tags }, points: new Map() };
      this.series.set(key, s);
    }
    return s;
  }
}

/** KairosDB's filter: for every filtered tag, the series has it with one of the listed values (reference §4.1). */
function matches(tags: Readonly<Record<string, string>>, filter: TagFilter): boolean {
  return Object.entries(filter).every(([name, values]) =>
    values.length === 0 || (Object.prototype.hasOwnProperty.call(tags, name) && values.includes(tags[name])));
}

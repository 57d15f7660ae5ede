import type { Database } from 'better-sqlite3';
import * as t from 'io-ts';
import { decodeOrThrow } from '../../core/decode-errors';
import { TagFilter } from '../../timeseries/point';

export interface SeriesEntry {
  readonly id: number;
  readonly metric: string;
  readonly tags: Readonly<Record<string, string>>;
  /** Canonical JSON of the tags, the series' identity within its metric. */
  readonly canonicalTags: string;
}

const SeriesRow = t.type({ id: t.number, metric: t.string, tags: t.string });
const TagPairs = t.array(t.tuple([t.string, t.string]));

/**
 * `[["attr","env.temp"],["unit","C"]]`: pairs sorted by name, so equal tag sets give equal strings. Built by hand
 * because it runs once per written point: this is 3-4 times faster than JSON.stringify of the pair array.
 */
export function canonicalTags(tags: Readonly<Record<string, string>>): string {
  const names = Object.keys(tags);
  if (names.length > 1) names.sort();
  let text = '[';
  for (let i = 0; i < names.length; i++) {
    text += `${i === 0 ? '' : ','}[${JSON.stringify(names[i])},${JSON.stringify(tags[names[i]])}]`;
  }
  return `${text}]`;
}

/**
 * Every series, cached in memory from the `series` table at open: a write finds its series ids, and a query its
 * candidate series, without touching SQLite. Services hold thousands of series, not billions, so this is small.
 * Assumes this process is the file's only writer.
 */
export class SeriesCatalog {
  private readonly byMetric = new Map<string, Map<string, SeriesEntry>>();
  /**
   * When the last point of a series expires (retention, issue 23 §2), for the series whose every point expires; a
   * series without an entry has a point that never does. Exact after each write; a delete, or a point replaced by
   * one expiring sooner, can leave it later than true until the next cleanup sets it again. Listings leave out the
   * series past it.
   */
  private readonly lastExpiry = new Map<number, number>();
  private sortedMetrics: string[] | undefined;
  private readonly insertRow;
  private readonly deleteRow;

  constructor(db: Database) {
    this.insertRow = db.prepare('INSERT INTO series (metric, tags) VALUES (?, ?)');
    this.deleteRow = db.prepare('DELETE FROM series WHERE id = ?');
    for (const row of db.prepare('SELECT id, metric, tags FROM series').iterate()) {
      const r = decodeOrThrow(SeriesRow, row, 'INTERNAL');
      // Frozen: readSeries hands these very objects to callers.
      const tags = Object.freeze(Object.fromEntries(decodeOrThrow(TagPairs, JSON.parse(r.tags), 'INTERNAL')));
      this.remember({ id: r.id, metric: r.metric, tags, canonicalTags: r.tags });
    }
  }

  find(metric: string, canonical: string): SeriesEntry | undefined {
    return this.byMetric.get(metric)?.get(canonical);
  }

  /** Inserts the series row, in the caller's transaction; `remember` it once that transaction commits. */
  insert(metric: string, tags: Readonly<Record<string, string>>, canonical: string): SeriesEntry {
    const id = Number(this.insertRow.run(metric, canonical).lastInsertRowid);
    return { id, metric, tags: Object.freeze({ ...tags }), canonicalTags: canonical };
  }

  remember(entry: SeriesEntry): void {
    let series = this.byMetric.get(entry.metric);
    if (series === undefined) {
      series = new Map();
      this.byMetric.set(entry.metric, series);
      this.sortedMetrics = undefined;
    }
    series.set(entry.canonicalTags, entry);
  }

  /** Deletes the series row (its points first), in the caller's transaction; `forget` it once that commits. */
  delete(entry: SeriesEntry): void {
    this.deleteRow.run(entry.id);
  }

  forget(entry: SeriesEntry): void {
    const series = this.byMetric.get(entry.metric);
    if (series?.get(entry.canonicalTags)?.id !== entry.id) return;
    series.delete(entry.canonicalTags);
    this.lastExpiry.delete(entry.id);
    if (series.size === 0) {
      this.byMetric.delete(entry.metric);
      this.sortedMetrics = undefined;
    }
  }

  /** Series of `metric` matching the filter (reference §4.1), in canonical-tags order so that results are stable. */
  matching(metric: string, filter: TagFilter): SeriesEntry[] {
    const conditions = Object.entries(filter).filter(([, values]) => values.length > 0);
    const found: SeriesEntry[] = [];
    for (const entry of this.byMetric.get(metric)?.values() ?? []) {
      const matches = conditions.every(
        ([name, values]) => Object.hasOwn(entry.tags, name) && values.includes(entry.tags[name]),
      );
      if (matches) found.push(entry);
    }
    return found.sort((a, b) => compareStrings(a.canonicalTags, b.canonicalTags));
  }

  /** When the series' last point expires; Infinity: one never does. For a series not yet remembered: -Infinity. */
  lastExpiryOf(id: number, known: boolean): number {
    return this.lastExpiry.get(id) ?? (known ? Infinity : -Infinity);
  }

  setLastExpiry(id: number, last: number): void {
    if (last === Infinity) this.lastExpiry.delete(id);
    else this.lastExpiry.set(id, last);
  }

  /** Every series remembered. */
  all(): SeriesEntry[] {
    return [...this.byMetric.values()].flatMap((series) => [...series.values()]);
  }

  private isLive(entry: SeriesEntry, now: number): boolean {
    const last = this.lastExpiry.get(entry.id);
    return last === undefined || last > now;
  }

  /** Metrics with a series not wholly expired at `now`. */
  metricNames(prefix: string | undefined, now: number): string[] {
    this.sortedMetrics ??= [...this.byMetric.keys()].sort(compareStrings);
    const live = (name: string) => this.lastExpiry.size === 0 || [...(this.byMetric.get(name)?.values() ?? [])].some((e) => this.isLive(e, now));
    return this.sortedMetrics.filter((name) => name.startsWith(prefix ?? '') && live(name));
  }

  /** Tags of the metric's series not wholly expired at `now`. */
  tagsOf(metric: string, now: number): Record<string, string[]> {
    const values = new Map<string, Set<string>>();
    for (const entry of this.byMetric.get(metric)?.values() ?? []) {
      if (!this.isLive(entry, now)) continue;
      for (const [name, value] of Object.entries(entry.tags)) {
        if (!values.has(name)) values.set(name, new Set());
        values.get(name)?.add(value);
      }
    }
    const names = [...values.keys()].sort(compareStrings);
    return Object.fromEntries(names.map((name) => [name, [...(values.get(name) ?? [])].sort(compareStrings)]));
  }
}

/** UTF-16 code unit order, like Java's String.compareTo (KairosDB sorts names that way). */
const compareStrings = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

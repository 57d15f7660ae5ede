/** A closed range of epoch ms. */
export interface TimeRange {
  readonly start: number;
  readonly end: number;
}

/** Marks closer than this are kept as one range: a device writing every few seconds makes one range, not thousands. */
const JOIN_GAP_MS = 3_600_000;

/**
 * The times whose tier buckets no longer match the raw points, per metric (device id): marked when points are written
 * or deleted, taken by the roll-up job. Ranges of one metric stay sorted and disjoint.
 */
export class DirtyRanges {
  private readonly byMetric = new Map<string, TimeRange[]>();

  mark(metric: string, start: number, end: number): void {
    const ranges = this.byMetric.get(metric);
    if (ranges === undefined) {
      this.byMetric.set(metric, [{ start, end }]);
      return;
    }
    const last = ranges[ranges.length - 1];
    // The common case: a device's new points are at or after its last dirty range.
    if (start >= last.start && start <= last.end + JOIN_GAP_MS) {
      ranges[ranges.length - 1] = { start: last.start, end: Math.max(last.end, end) };
      return;
    }
    this.byMetric.set(metric, joined([...ranges, { start, end }]));
  }

  /** Every dirty range, forgotten here. */
  take(): Map<string, TimeRange[]> {
    const taken = new Map(this.byMetric);
    this.byMetric.clear();
    return taken;
  }

  rangesOf(metric: string): readonly TimeRange[] {
    return this.byMetric.get(metric) ?? [];
  }
}

/** Sorted, disjoint ranges covering the same times (and the gaps shorter than JOIN_GAP_MS between them). */
export function joined(ranges: readonly TimeRange[]): TimeRange[] {
  const sorted = [...ranges].sort((a, b) => a.start - b.start);
  const out: TimeRange[] = [];
  for (const range of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && range.start <= last.end + JOIN_GAP_MS) out[out.length - 1] = { start: last.start, end: Math.max(last.end, range.end) };
    else out.push(range);
  }
  return out;
}

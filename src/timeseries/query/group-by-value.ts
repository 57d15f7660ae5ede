import { GroupBySpec } from './query-model';
import { PointStream } from './point-stream';
import { PACE_EVERY, QueryRun } from './query-run';
import { GroupByEntry } from './query-response';

/**
 * The time, value and bin groupers (reference §4.4, §7; KairosDB's Grouper), applied to each type/tag group:
 * every point gets one id per grouper (in group_by order); points with the same ids form a sub-group. Sub-groups
 * come out in order of first appearance and keep their points' order. A group with no points has no sub-groups.
 */

export type ValueGrouper = Exclude<GroupBySpec, { name: 'tag' }>;

export interface SubGroup {
  /** One entry per grouper, in group_by order. */
  readonly entries: readonly GroupByEntry[];
  readonly stream: PointStream;
}

const UNIT_MS = { MILLISECONDS: 1, SECONDS: 1000, MINUTES: 60_000, HOURS: 3_600_000, DAYS: 86_400_000, WEEKS: 604_800_000 };

/** Each new sub-group counts against the run's QUERY_MAX_GROUPS as soon as it appears. */
export async function splitByGroupers(stream: PointStream, groupers: readonly ValueGrouper[], run: QueryRun): Promise<SubGroup[]> {
  const n = stream.ts.length;
  const idOf = groupers.map((g) => groupIdFunction(g));
  const groupOf = new Int32Array(n);
  const firstIds: number[][] = [];
  const index = new Map<string | number, number>();
  for (let i = 0; i < n; i++) {
    if (i % PACE_EVERY === 0) await run.pace();
    // `+ 0` turns -0 (a truncated negative fraction) into Java's int 0.
    const ids = idOf.map((f) => f(stream.ts[i], stream.vals[i]) + 0);
    const key = ids.length === 1 ? ids[0] : ids.join(',');
    let g = index.get(key);
    if (g === undefined) {
      run.countGroups();
      g = firstIds.length;
      index.set(key, g);
      firstIds.push(ids);
    }
    groupOf[i] = g;
  }
  const counts = new Int32Array(firstIds.length);
  for (let i = 0; i < n; i++) counts[groupOf[i]]++;
  const ts = firstIds.map((_, g) => new Float64Array(counts[g]));
  const vals = firstIds.map((_, g) => new Float64Array(counts[g]));
  const filled = new Int32Array(firstIds.length);
  for (let i = 0; i < n; i++) {
    const g = groupOf[i];
    ts[g][filled[g]] = stream.ts[i];
    vals[g][filled[g]++] = stream.vals[i];
  }
  return firstIds.map((ids, g) => ({
    entries: groupers.map((grouper, k) => entryOf(grouper, ids[k])),
    stream: { ts: ts[g], vals: vals[g] },
  }));
}

function groupIdFunction(g: ValueGrouper): (t: number, v: number) => number {
  switch (g.name) {
    case 'time': {
      const { rangeSize, groupCount, startDate } = g;
      if (rangeSize.unit === 'MONTHS') {
        // Calendar months in UTC; KairosDB ignores range_size.value here (TimeGroupBy.getGroupId).
        const start = new Date(startDate);
        const startMonths = start.getUTCFullYear() * 12 + start.getUTCMonth();
        return (t) => {
          const d = new Date(t);
          return (d.getUTCFullYear() * 12 + d.getUTCMonth() - startMonths) % groupCount;
        };
      }
      // YEARS is 52 weeks (TimeGroupBy.convertGroupSizeToMillis falls through from WEEKS).
      const size = rangeSize.value * (rangeSize.unit === 'YEARS' ? 52 * UNIT_MS.WEEKS : UNIT_MS[rangeSize.unit]);
      return (t) => Math.trunc((t - startDate) / size) % groupCount;
    }
    case 'value': {
      const range = g.rangeSize;
      // A long divides as a long, then casts to int; a double is cast to int first (`(int) v / rangeSize`).
      return (_t, v) => (Number.isInteger(v) ? javaLongToInt(Math.trunc(v / range)) : Math.trunc(javaDoubleToInt(v) / range));
    }
    case 'bin': {
      const bins = g.bins;
      return (_t, v) => {
        if (v < bins[0]) return 0;
        for (let i = 0; i < bins.length - 1; i++) if (v >= bins[i] && v < bins[i + 1]) return i + 1;
        return bins.length;
      };
    }
  }
}

function entryOf(g: ValueGrouper, id: number): GroupByEntry {
  switch (g.name) {
    case 'time': return { name: 'time', range_size: { value: g.rangeSize.value, unit: g.rangeSize.unit }, group_count: g.groupCount, group: { group_number: id } };
    case 'value': return { name: 'value', range_size: g.rangeSize, group: { group_number: id } };
    case 'bin': return { name: 'bin', bins: g.bins, group: { bin_number: id } };
  }
}

/** Java's (int) of a double: truncation, saturating at the int range, NaN -> 0. */
function javaDoubleToInt(v: number): number {
  if (Number.isNaN(v)) return 0;
  return Math.max(-(2 ** 31), Math.min(2 ** 31 - 1, Math.trunc(v)));
}

/** Java's (int) of a long: the low 32 bits. */
function javaLongToInt(v: number): number {
  return Math.abs(v) < 2 ** 31 ? v : Number(BigInt.asIntN(32, BigInt(v)));
}

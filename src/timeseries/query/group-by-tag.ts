import { FetchedSeries } from './fetch-series';
import { GroupBySpec } from './query-model';

/**
 * Type and tag grouping (reference §4.3, KairosDatastore.groupByTypeAndTag). Every stored series here is numeric,
 * so there is one type bucket, `number`. With a tag grouper (only the first one counts) a series' key is, for each
 * grouper tag in order, the tag's name followed by its value (`""` when the series lacks it); groups come out in
 * ascending order of that string (Java String.compareTo: UTF-16 code units, as JS `<`). Keys can collide
 * (`a=xb,b=y` and `a=x,b=by` both give `axbby`): such series share a group, labelled by the last one seen.
 */

export interface TagGroupResult {
  readonly tags: readonly string[];
  /** Grouper tag -> the group's value, in grouper order. */
  readonly group: ReadonlyMap<string, string>;
}

export interface SeriesGroup {
  readonly tagResult?: TagGroupResult;
  readonly series: readonly FetchedSeries[];
}

export function groupByTag(series: readonly FetchedSeries[], groupBy: readonly GroupBySpec[]): SeriesGroup[] {
  const grouper = groupBy.find((g): g is Extract<GroupBySpec, { name: 'tag' }> => g.name === 'tag');
  if (grouper === undefined) return [{ series }];
  const groups = new Map<string, { series: FetchedSeries[]; group: Map<string, string> }>();
  for (const s of series) {
    const group = new Map<string, string>();
    let key = '';
    for (const tag of grouper.tags) {
      const value = Object.prototype.hasOwnProperty.call(s.tags, tag) ? s.tags[tag] : '';
      group.set(tag, value);
      key += tag + value;
    }
    const existing = groups.get(key);
    if (existing === undefined) groups.set(key, { series: [s], group });
    else {
      existing.series.push(s);
      existing.group = group;
    }
  }
  return [...groups.keys()].sort(compareUtf16).map((key) => {
    const { series: members, group } = groups.get(key)!;
    return { tagResult: { tags: grouper.tags, group }, series: members };
  });
}

const compareUtf16 = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

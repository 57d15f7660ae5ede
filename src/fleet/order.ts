import { isJsonObject, Json, JsonObject, setMember } from '../core/json';
import { FleetEntry } from './port';

/**
 * The order of a fleet query's answer (docs/fleet-query.md "Sort and paging"): by the sort field's value, numbers
 * before strings before booleans, and devices without such a value (the field absent, null, an object or a list) last
 * in either order; ties, and every device when there is no sort, by deviceid ascending. Strings compare by UTF-16
 * code units, as JavaScript does.
 */

/** What a device sorts by: its value at the sort field, null when it has none that orders. */
export type SortKey = number | string | boolean | null;

/** Where a device stands in the order: after it, the next page begins. */
export interface Position {
  readonly key: SortKey;
  readonly deviceid: string;
}

const DEVICE_PREFIX = '$device.';

/** The value of `path` in the device: a member of `$device` (`$device.rev`) or a path into its shadow data. */
export function pathReader(path: string): (entry: FleetEntry) => Json | undefined {
  if (path.startsWith(DEVICE_PREFIX)) {
    const member = path.slice(DEVICE_PREFIX.length) as 'deviceid' | 'groupid' | 'alias' | 'rev' | 'modified';
    return (entry) => entry[member];
  }
  const keys = path.split('.');
  return (entry) => {
    let value: Json | undefined = entry.data;
    for (const key of keys) {
      if (!isJsonObject(value) || !Object.hasOwn(value, key)) return undefined;
      value = value[key];
    }
    return value;
  };
}

export function sortKeyOf(value: Json | undefined): SortKey {
  return typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean' ? value : null;
}

const rank = (key: SortKey) => (typeof key === 'number' ? 0 : typeof key === 'string' ? 1 : typeof key === 'boolean' ? 2 : 3);

/** Negative when `a` comes first. */
export function comparePositions(a: Position, b: Position, descending: boolean): number {
  const ra = rank(a.key);
  const rb = rank(b.key);
  if (ra !== rb) return ra - rb;
  if (ra !== 3 && a.key !== b.key) return (a.key! < b.key! ? -1 : 1) * (descending ? -1 : 1);
  return a.deviceid < b.deviceid ? -1 : a.deviceid > b.deviceid ? 1 : 0;
}

/**
 * The first `limit` of the positions offered, in order, keeping no more than `limit` at a time: a page of 100 out of
 * 100,000 matches is chosen without sorting them all.
 */
export function firstOf<T extends Position>(limit: number, descending: boolean) {
  const kept: T[] = [];
  return {
    offer(item: T): void {
      if (kept.length === limit && comparePositions(item, kept[limit - 1], descending) >= 0) return;
      let low = 0;
      let high = kept.length;
      while (low < high) {
        const mid = (low + high) >>> 1;
        if (comparePositions(kept[mid], item, descending) < 0) low = mid + 1;
        else high = mid;
      }
      kept.splice(low, 0, item);
      if (kept.length > limit) kept.pop();
    },
    items: (): readonly T[] => kept,
  };
}

/** The shadow data at the paths asked, nested as in the shadow; paths a device lacks are left out. */
export function pickFields(data: JsonObject, paths: readonly string[]): JsonObject {
  const picked: JsonObject = {};
  for (const path of paths) {
    const keys = path.split('.');
    let from: Json = data;
    let into = picked;
    let found = true;
    for (let i = 0; i < keys.length && found; i++) {
      if (!isJsonObject(from) || !Object.hasOwn(from, keys[i])) found = false;
      else from = from[keys[i]];
    }
    if (!found) continue;
    for (let i = 0; i < keys.length - 1; i++) {
      if (!Object.hasOwn(into, keys[i]) || !isJsonObject(into[keys[i]])) setMember(into, keys[i], {});
      into = into[keys[i]] as JsonObject;
    }
    setMember(into, keys[keys.length - 1], from);
  }
  return picked;
}

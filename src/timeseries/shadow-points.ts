import { isJsonObject, Json, JsonObject } from '../core/json';
import { Point } from './point';

/** The tag that names a shadow field in the time-series store (design write rule: tag attr = field name). */
export const FIELD_TAG = 'attr';

/**
 * The points of one shadow write: one per numeric or boolean leaf of the written `data` (not of the whole shadow),
 * nested objects flattened to dotted paths (`env.temp`), booleans as 1/0. Strings, arrays and nulls are not points.
 */
export function pointsOfWrite(deviceid: string, data: JsonObject, timestamp: number, tagsByPath = new Map<string, Point['tags']>()): Point[] {
  const points: Point[] = [];
  // Points of one field share one tags object (across the items of a batch too, when the caller passes its map):
  // the stores group points by series, and tell a series by its tags object first.
  const tagsOf = (path: string) => {
    let tags = tagsByPath.get(path);
    if (!tags) tagsByPath.set(path, (tags = { [FIELD_TAG]: path }));
    return tags;
  };
  const visit = (value: Json, path: string) => {
    if (typeof value === 'number') points.push({ metric: deviceid, tags: tagsOf(path), timestamp, value });
    else if (typeof value === 'boolean') points.push({ metric: deviceid, tags: tagsOf(path), timestamp, value: value ? 1 : 0 });
    else if (isJsonObject(value)) for (const [key, member] of Object.entries(value)) visit(member, path === '' ? key : `${path}.${key}`);
  };
  visit(data, '');
  return points;
}

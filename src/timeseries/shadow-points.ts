import { isJsonObject, Json, JsonObject } from '../json';
import { Point } from './point';

/** The tag that names a shadow field in the time-series store (design write rule: tag attr = field name). */
export const FIELD_TAG = 'attr';

/**
 * The points of one shadow write: one per numeric or boolean leaf of the written `data` (not of the whole shadow),
 * nested objects flattened to dotted paths (`env.temp`), booleans as 1/0. Strings, arrays and nulls are not points.
 */
export function pointsOfWrite(deviceid: string, data: JsonObject, timestamp: number): Point[] {
  const points: Point[] = [];
  const visit = (value: Json, path: string) => {
    if (typeof value === 'number') points.push({ metric: deviceid, tags: { [FIELD_TAG]: path }, timestamp, value });
    else if (typeof value === 'boolean') points.push({ metric: deviceid, tags: { [FIELD_TAG]: path }, timestamp, value: value ? 1 : 0 });
    else if (isJsonObject(value)) for (const [key, member] of Object.entries(value)) visit(member, path === '' ? key : `${path}.${key}`);
  };
  visit(data, '');
  return points;
}

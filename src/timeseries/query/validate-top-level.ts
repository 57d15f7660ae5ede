import { KairosQueryError, queryError } from './kairos-query-error';
import {
  decodeLeaf, decodeZone, JavaInt, JavaLong, JavaString, JsonArrayCodec, JsonObjectCodec, member, TimeUnitName,
} from './lenient-codecs';
import { TimeUnit } from './query-model';

/**
 * The query-level members (reference §3.1), read in KairosDB's steps 2-4 (§3.6): members in JSON order with their
 * types (a bad unit or zone stops at once), then the bean rules all together, then the query plugins.
 */

export interface RelativeTimeMember {
  readonly value: number;
  readonly unit: TimeUnit | undefined;
}

export interface TopLevel {
  readonly startAbsolute?: number;
  readonly startRelative?: RelativeTimeMember;
  readonly endAbsolute?: number;
  readonly endRelative?: RelativeTimeMember;
  /** `UTC` when absent or null: KairosDB then uses the JVM zone, which its launchers set to UTC (§3.5). */
  readonly timeZone: string;
}

export function readTopLevel(body: Record<string, unknown>): TopLevel {
  const top: { -readonly [K in keyof TopLevel]: TopLevel[K] } = { timeZone: 'UTC' };
  let cacheTime = 0;
  // Step 2: Gson reads the members in order; the first bad type stops (unknown members are ignored).
  for (const key of Object.keys(body)) {
    const value = member(body, key);
    if (value === null || value === undefined) continue;
    if (key === 'start_absolute') top.startAbsolute = decodeLeaf(JavaLong, value, 'query.start_absolute');
    else if (key === 'end_absolute') top.endAbsolute = decodeLeaf(JavaLong, value, 'query.end_absolute');
    else if (key === 'start_relative') top.startRelative = readRelative(value, 'query.start_relative');
    else if (key === 'end_relative') top.endRelative = readRelative(value, 'query.end_relative');
    else if (key === 'time_zone') top.timeZone = decodeZone(value, 'query');
    else if (key === 'cache_time') cacheTime = decodeLeaf(JavaInt, value, 'query.cache_time');
  }
  // Step 3: the bean rules of the Query object, reported together and without the `query.` prefix.
  const problems = [
    ...(cacheTime < 0 ? ['cache_time must be greater than or equal to 0'] : []),
    ...relativeProblems(top.startRelative, 'start_relative'),
    ...relativeProblems(top.endRelative, 'end_relative'),
  ];
  if (problems.length > 0) throw new KairosQueryError(problems);
  // cache_time only selects cached raw rows in KairosDB (§4.7); the engine always reads fresh data.
  checkNoPlugins(member(body, 'plugins'), '', 'query.plugins');
  return top;
}

function readRelative(raw: unknown, context: string): RelativeTimeMember {
  const object = decodeLeaf(JsonObjectCodec, raw, context);
  let value = 0;
  let unit: TimeUnit | undefined;
  for (const key of Object.keys(object)) {
    const v = member(object, key);
    if (key === 'value' && v !== null) value = decodeLeaf(JavaLong, v, `${context}.value`);
    if (key === 'unit' && v !== null) unit = decodeLeaf(TimeUnitName, v, 'query', '.');
  }
  return { value, unit };
}

function relativeProblems(relative: RelativeTimeMember | undefined, name: string): string[] {
  if (relative === undefined) return [];
  return [
    ...(relative.value < 1 ? [`${name}.value must be greater than or equal to 1`] : []),
    ...(relative.unit === undefined ? [`${name}.unit may not be null`] : []),
  ];
}

/**
 * Query plugins (step 4 and step 12): KairosDB's core registers none, so any entry fails, with its odd contexts:
 * `plugins[0] must have a name` at query level, `.plugins[0].x invalid query plugin name` (leading dot).
 */
export function checkNoPlugins(raw: unknown, context: string, memberContext: string): void {
  if (raw === undefined || raw === null) return;
  const plugins = decodeLeaf(JsonArrayCodec, raw, memberContext);
  if (plugins.length === 0) return;
  const first = decodeLeaf(JsonObjectCodec, plugins[0], `${context}${context === '' ? '' : '.'}plugins[0]`);
  const rawName = member(first, 'name');
  const name = rawName === undefined || rawName === null ? '' : decodeLeaf(JavaString, rawName, `${context}.plugins[0].name`);
  if (name === '') throw queryError(`${context}${context === '' ? '' : '.'}plugins[0] must have a name`);
  throw queryError(`${context}.plugins[0].${name} invalid query plugin name`);
}

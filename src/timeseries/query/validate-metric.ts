import { TagFilter } from '../point';
import { queryError } from './kairos-query-error';
import {
  decodeLeaf, ElementBoolean, JavaInt, JavaLong, JavaString, JsonObjectCodec, member,
} from './lenient-codecs';
import { MetricQuery, Order } from './query-model';
import { relativeTime } from './relative-time';
import { MAX_INSTANT } from './time-zone';
import { validateAggregators } from './validate-aggregators';
import { validateGroupBys } from './validate-group-by';
import { checkNoPlugins, RelativeTimeMember, TopLevel } from './validate-top-level';

/**
 * One element of `metrics`, in KairosDB's steps 6-13 (reference §3.6), stopping at the first failing step.
 * Context prefix: `query.metric[i]`.
 */
export function validateMetric(raw: unknown, index: number, top: TopLevel, now: number): MetricQuery {
  const context = `query.metric[${index}]`;
  const object = decodeLeaf(JsonObjectCodec, raw, context);

  // Step 6: KairosDB's MetricDeserializer reads name, exclude_tags, tags and limit, in that order.
  const rawName = member(object, 'name');
  const name = rawName === undefined || rawName === null ? undefined : decodeLeaf(JavaString, rawName, `${context}.name`);
  const rawExclude = member(object, 'exclude_tags');
  const excludeTags = rawExclude === undefined || rawExclude === null ? false : decodeLeaf(ElementBoolean, rawExclude, `${context}.exclude_tags`);
  const tags = readTagFilter(member(object, 'tags'), context);
  const limit = readLimit(member(object, 'limit'), context);

  // Step 7: bean rules of the metric.
  if (name === undefined) throw queryError(`${context}.name may not be null`);
  if (name === '') throw queryError(`${context}.name may not be empty`);

  // Steps 8 and 9: the range (§3.3), with the spec's rules where they differ from KairosDB (issue 3 §3).
  const { start, end } = resolveRange(object, top, context, now);

  // Steps 10 and 11: group_by is parsed before aggregators (KairosFeatureProcessor lists the groupers first).
  const groupBy = validateGroupBys(member(object, 'group_by'), context, start);
  const tagGroupNames = groupBy.flatMap((g) => (g.name === 'tag' ? g.tags : []));
  const aggregators = validateAggregators(member(object, 'aggregators'), {
    metricContext: context, metricStart: start, metricEnd: end, now, queryZone: top.timeZone, tagGroupNames,
  });

  // Steps 12 and 13.
  checkNoPlugins(member(object, 'plugins'), context, `${context}.plugins`);
  const order = readOrder(member(object, 'order'), context);

  return { name, tags, start, end, limit, order, excludeTags, groupBy, aggregators };
}

/**
 * A tag filter: tag -> value or array of values; `[n]` in the messages is the tag's position in the object.
 * An empty array adds nothing, so it does not filter on that tag (reference §3.2).
 */
function readTagFilter(raw: unknown, context: string): TagFilter {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw queryError(`java.lang.IllegalStateException: Not a JSON Object: ${JSON.stringify(raw)}`);
  }
  const object = raw as Record<string, unknown>;
  const filter = new Map<string, string[]>();
  Object.keys(object).forEach((key, position) => {
    const tagContext = `${context}.tags[${position}]`;
    if (key === '') throw queryError(`${tagContext} name must not be empty`);
    const value = member(object, key);
    const values = Array.isArray(value) ? value : [value];
    for (const element of values) {
      const text = element === null ? '' : decodeLeaf(JavaString, element, `${tagContext}.${key}`);
      if (text === '') throw queryError(`${tagContext}.${key} value must not be null or empty`);
      const list = filter.get(key) ?? [];
      if (!list.includes(text)) list.push(text);
      filter.set(key, list);
    }
  });
  return Object.fromEntries(filter);
}

/**
 * `limit`: KairosDB reads it as an int where 0 means none and anything else is not validated (a non-integer is a
 * 500 there). Issue 3 asks for a positive integer, so negatives and fractions are 400s here; 0 stays "no limit", as
 * Grafana's KairosDB data source sends `limit: 0` with every query (issue 13).
 */
function readLimit(raw: unknown, context: string): number {
  if (raw === undefined || raw === null) return 0;
  const limit = decodeLeaf(JavaInt, raw, `${context}.limit`);
  if (limit < 0) throw queryError(`${context}.limit must be greater than or equal to 0`);
  return limit;
}

function resolveRange(object: Record<string, unknown>, top: TopLevel, context: string, now: number) {
  const relative = (r: RelativeTimeMember) => relativeTime(now, { value: r.value, unit: r.unit ?? 'MILLISECONDS' });
  // Spec 2.6 (issue 3): exactly one start, at most one end. KairosDB would let the absolute one win silently.
  if (top.startAbsolute !== undefined && top.startRelative !== undefined) {
    throw queryError(`${context}.start_time must be either relative or absolute, not both`);
  }
  let start = top.startAbsolute ?? (top.startRelative === undefined ? undefined : relative(top.startRelative));
  if (start === undefined) throw queryError(`${context}.start_time relative or absolute time must be set`);
  if (top.endAbsolute !== undefined && top.endRelative !== undefined) {
    throw queryError(`${context}.end_time must be either relative or absolute, not both`);
  }
  // Spec 2.6: with no end the end is now. KairosDB leaves it unbounded and returns future points (§3.3).
  let end = top.endAbsolute ?? (top.endRelative === undefined ? now : relative(top.endRelative));
  // Per-metric absolute overrides (§3.3 step 3).
  const startOverride = member(object, 'start_absolute');
  if (startOverride !== undefined && startOverride !== null) start = decodeLeaf(JavaLong, startOverride, `${context}.start_absolute`);
  const endOverride = member(object, 'end_absolute');
  if (endOverride !== undefined && endOverride !== null) end = decodeLeaf(JavaLong, endOverride, `${context}.end_absolute`);
  // JS dates, and so calendar arithmetic, stop at ±8.64e15 ms (year ±275760); Java longs go further.
  for (const [label, time] of [['start_time', start], ['end_time', end]] as const) {
    if (!Number.isFinite(time) || Math.abs(time) > MAX_INSTANT) {
      throw queryError(`${context}.${label} must be between -${MAX_INSTANT} and ${MAX_INSTANT}`);
    }
  }
  // Spec 2.6 says greater; KairosDB's own message says the same but lets end = start through (§3.3 step 4).
  if (end <= start) throw queryError(`${context}.end_time must be greater than the start time`);
  return { start, end };
}

function readOrder(raw: unknown, context: string): Order {
  if (raw === undefined || raw === null) return 'asc';
  const text = decodeLeaf(JavaString, raw, `${context}.order`).toLowerCase();
  if (text !== 'asc' && text !== 'desc') throw queryError(`${context}.order must be either 'asc' or 'desc'`);
  return text;
}

import { KairosQueryError, queryError } from './kairos-query-error';
import { decodeLeaf, JavaString, JsonArrayCodec, JsonObjectCodec, member } from './lenient-codecs';
import { bindProperties, BoundProperties, PropKind, ProcessorType } from './property-binder';
import { GroupBySpec } from './query-model';

/**
 * The `group_by` array of one metric (reference §3.6 step 10, §7), in array order, stopping at the first failure:
 * name, then each member bound to a property, then the grouper's bean rules.
 */

interface GrouperType extends ProcessorType {
  build(props: BoundProperties, check: (rules: [boolean, string][]) => void, metricStart: number): GroupBySpec;
}

const GROUPBY = 'org.kairosdb.core.groupby.';
// Every grouper has setStartDate, so `start_date` binds (the time grouper counts from it instead of the start).
const START: [string, PropKind] = ['start_date', 'long'];

const TYPES: GrouperType[] = [
  {
    name: 'tag', javaClass: `${GROUPBY}TagGroupBy`, properties: new Map([['tags', 'stringList'], START]),
    build(p, check) {
      const tags = p.get('tags', 'stringList');
      check([[tags === undefined, 'tags may not be null'], [tags !== undefined && tags.length === 0, 'tags may not be empty']]);
      return { name: 'tag', tags: tags ?? [] };
    },
  },
  {
    name: 'time', javaClass: `${GROUPBY}TimeGroupBy`, properties: new Map([['range_size', 'duration'], ['group_count', 'int'], START]),
    build(p, check, metricStart) {
      const rangeSize = p.get('range_size', 'duration');
      const groupCount = p.get('group_count', 'int') ?? 0;
      check([[rangeSize === undefined, 'rangeSize may not be null'], [groupCount < 1, 'groupCount must be greater than or equal to 1']]);
      return { name: 'time', rangeSize: rangeSize ?? { value: 1, unit: 'MILLISECONDS' }, groupCount, startDate: p.get('start_date', 'long') ?? metricStart };
    },
  },
  {
    name: 'value', javaClass: `${GROUPBY}ValueGroupBy`, properties: new Map([['range_size', 'int'], START]),
    build(p, check) {
      const rangeSize = p.get('range_size', 'int') ?? 0;
      check([[rangeSize < 1, 'rangeSize must be greater than or equal to 1']]);
      return { name: 'value', rangeSize };
    },
  },
  {
    name: 'bin', javaClass: `${GROUPBY}BinGroupBy`, properties: new Map([['bins', 'doubleList'], START]),
    build(p, check) {
      // KairosDB fails later (NullPointerException, index out of bounds: a 500); refusing it here is kinder.
      const bins = p.get('bins', 'doubleList');
      check([[bins === undefined, 'bins may not be null'], [bins !== undefined && bins.length === 0, 'bins may not be empty']]);
      return { name: 'bin', bins: bins ?? [] };
    },
  },
];

const BY_NAME = new Map(TYPES.map((type) => [type.name, type]));

export function validateGroupBys(raw: unknown, metricContext: string, metricStart: number): GroupBySpec[] {
  if (raw === undefined || raw === null) return [];
  const items = decodeLeaf(JsonArrayCodec, raw, `${metricContext}.group_by`);
  return items.map((item, j) => {
    const object = decodeLeaf(JsonObjectCodec, item, `${metricContext}.group_by[${j}]`);
    const rawName = member(object, 'name');
    const name = rawName === undefined || rawName === null ? '' : decodeLeaf(JavaString, rawName, `${metricContext}.group_by[${j}].name`);
    if (name === '') throw queryError(`${metricContext}.group_by[${j}] must have a name`);
    const context = `${metricContext}.group_by[${j}]`;
    const type = BY_NAME.get(name);
    if (type === undefined) throw queryError(`${context}.${name} invalid group_by name`);
    const props = bindProperties(object, context, type);
    const check = (rules: [boolean, string][]) => {
      const problems = rules.filter(([bad]) => bad).map(([, message]) => `${context}.${message}`);
      if (problems.length > 0) throw new KairosQueryError(problems);
    };
    return type.build(props, check, metricStart);
  });
}

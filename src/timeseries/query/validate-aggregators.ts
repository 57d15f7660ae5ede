import { KairosQueryError, queryError } from './kairos-query-error';
import { decodeLeaf, JavaString, JsonArrayCodec, JsonObjectCodec, member } from './lenient-codecs';
import { bindProperties, BoundProperties, PropKind, ProcessorType } from './property-binder';
import { AggregatorSpec, RangeOptions } from './query-model';

/**
 * The `aggregators` array of a metric (reference §3.6 step 11). Every aggregator name the engine accepts, with its
 * properties (KairosDB's setters, reference §6.1-6.2) and how the bound properties become an AggregatorSpec,
 * including the bean rules KairosDB checks after binding (§3.6). Spec 2.6 names plus `sma` (a KairosDB 1.2 core
 * aggregator), `histogram` and the three js_* of the kise module.
 */

export interface BuildContext {
  /** `query.metric[i].aggregators[j]` */
  readonly context: string;
  readonly metricStart: number;
  readonly metricEnd: number;
  readonly now: number;
  readonly queryZone: string;
  /** Tag names of every tag grouper of the metric (save_as keeps these, SaveAsAggregator.setGroupBys). */
  readonly tagGroupNames: readonly string[];
}

interface AggregatorType extends ProcessorType {
  build(props: BoundProperties, ctx: BuildContext): AggregatorSpec;
}

const RANGE_PROPS: [string, PropKind][] = [
  ['sampling', 'duration'], ['align_sampling', 'boolean'], ['align_start_time', 'boolean'], ['align_end_time', 'boolean'],
  ['start_time', 'long'], ['end_time', 'long'], ['time_zone', 'zone'],
];

const CORE = 'org.kairosdb.core.aggregator.';
const KISE = 'com.kise.kairosdb.core.aggregator.';

function rangeOptions(props: BoundProperties, ctx: BuildContext): RangeOptions {
  return {
    sampling: props.get('sampling', 'duration') ?? { value: 1, unit: 'MILLISECONDS' },
    alignSampling: props.get('align_sampling', 'boolean') ?? false,
    alignStartTime: props.get('align_start_time', 'boolean') ?? false,
    alignEndTime: props.get('align_end_time', 'boolean') ?? false,
    startTime: props.get('start_time', 'long') ?? ctx.metricStart,
    // RangeAggregator.setEndTime caps the end at now: gaps never marks the future.
    endTime: Math.min(props.get('end_time', 'long') ?? ctx.metricEnd, ctx.now),
    timeZone: props.get('time_zone', 'zone') ?? ctx.queryZone,
  };
}

/** Bean rules reported together, like KairosDB's validateObject on the aggregator. */
function check(ctx: BuildContext, rules: [boolean, string][]): void {
  const problems = rules.filter(([bad]) => bad).map(([, message]) => `${ctx.context}.${message}`);
  if (problems.length > 0) throw new KairosQueryError(problems);
}

type PlainRangeName = 'avg' | 'count' | 'first' | 'gaps' | 'last' | 'least_squares' | 'max' | 'min' | 'sum';

function rangeType(name: PlainRangeName, javaClass: string): AggregatorType {
  return { name, javaClass: CORE + javaClass, properties: new Map(RANGE_PROPS), build: (p, c) => ({ name, range: rangeOptions(p, c) }) };
}

function percentileType(name: 'percentile' | 'histogram'): AggregatorType {
  return {
    name,
    javaClass: `${CORE}PercentileAggregator`,
    properties: new Map([...RANGE_PROPS, ['percentile', 'double']]),
    build(p, c) {
      const percentile = p.get('percentile', 'double') ?? 0;
      check(c, [[percentile === 0, 'percentile may not be zero']]);
      return { name: 'percentile', range: rangeOptions(p, c), percentile };
    },
  };
}

function rateType(name: 'rate' | 'sampler', javaClass: string, props: [string, PropKind][]): AggregatorType {
  return {
    name, javaClass: CORE + javaClass, properties: new Map(props),
    build(p, c) {
      // `unit` and `sampling` both set the sampling; the later JSON member wins (setter order).
      const unit = p.get('unit', 'unit');
      const sampling = p.get('sampling', 'duration');
      const fromUnit = unit === undefined ? undefined : { value: 1, unit };
      const chosen = p.position('unit') > p.position('sampling') ? fromUnit ?? sampling : sampling ?? fromUnit;
      return { name, sampling: chosen ?? { value: 1, unit: 'MILLISECONDS' }, timeZone: p.get('time_zone', 'zone') ?? c.queryZone };
    },
  };
}

function scriptType(name: 'js_function' | 'js_filter', javaClass: string): AggregatorType {
  return {
    name, javaClass: KISE + javaClass, properties: new Map([['script', 'string']]),
    build: (p, c) => ({ name, script: requiredScript(p, c) }),
  };
}

function requiredScript(p: BoundProperties, c: BuildContext): string {
  const script = p.get('script', 'string');
  check(c, [[script === undefined, 'script may not be null'], [script === '', 'script may not be empty']]);
  return script ?? '';
}

const TYPES: AggregatorType[] = [
  rangeType('avg', 'AvgAggregator'),
  rangeType('count', 'CountAggregator'),
  rangeType('first', 'FirstAggregator'),
  rangeType('gaps', 'DataGapsMarkingAggregator'),
  rangeType('last', 'LastAggregator'),
  rangeType('least_squares', 'LeastSquaresAggregator'),
  rangeType('max', 'MaxAggregator'),
  rangeType('min', 'MinAggregator'),
  rangeType('sum', 'SumAggregator'),
  percentileType('percentile'),
  // KairosDB's docs record that percentile was called `histogram` before 0.9.2; 1.2.x no longer registers the old
  // name, and neither KairosDB nor its extensions have another aggregator of that name (reference §6.5, issue 3).
  percentileType('histogram'),
  {
    name: 'dev', javaClass: `${CORE}StdAggregator`,
    properties: new Map([...RANGE_PROPS, ['return_type', 'devReturn'], ['dev_count', 'int']]),
    build: (p, c) => ({ name: 'dev', range: rangeOptions(p, c), returnType: p.get('return_type', 'devReturn') ?? 'value', devCount: p.get('dev_count', 'int') ?? 1 }),
  },
  { name: 'diff', javaClass: `${CORE}DiffAggregator`, properties: new Map(), build: () => ({ name: 'diff' }) },
  {
    name: 'div', javaClass: `${CORE}DivideAggregator`, properties: new Map([['divisor', 'double']]),
    build(p, c) {
      const divisor = p.get('divisor', 'double') ?? 0;
      check(c, [[divisor === 0, 'm_divisor may not be zero']]);
      return { name: 'div', divisor };
    },
  },
  // KairosDB does not validate the factor; it defaults to 0 (reference §6.2).
  { name: 'scale', javaClass: `${CORE}ScaleAggregator`, properties: new Map([['factor', 'double']]), build: (p) => ({ name: 'scale', factor: p.get('factor', 'double') ?? 0 }) },
  rateType('rate', 'RateAggregator', [['sampling', 'duration'], ['unit', 'unit'], ['time_zone', 'zone']]),
  rateType('sampler', 'SamplerAggregator', [['unit', 'unit'], ['time_zone', 'zone']]),
  {
    name: 'sma', javaClass: `${CORE}SmaAggregator`, properties: new Map([['size', 'int']]),
    build(p, c) {
      // KairosDB fails a zero size at run time with a null message (a 500); the engine refuses it up front.
      const size = p.get('size', 'int') ?? 0;
      check(c, [[size === 0, 'size may not be zero']]);
      return { name: 'sma', size };
    },
  },
  { name: 'trim', javaClass: `${CORE}TrimAggregator`, properties: new Map([['trim', 'trim']]), build: (p) => ({ name: 'trim', trim: p.get('trim', 'trim') }) },
  {
    name: 'filter', javaClass: `${CORE}FilterAggregator`, properties: new Map([['filter_op', 'filterOp'], ['threshold', 'double']]),
    build(p, c) {
      // A missing filter_op is a NullPointerException (500) in the fork, and 1.2.1 drops no point at all (found by
      // known-differences.test.ts); here it is a 400 before anything runs.
      const op = p.get('filter_op', 'filterOp');
      check(c, [[op === undefined, 'filter_op may not be null']]);
      return { name: 'filter', op: op ?? 'equal', threshold: p.get('threshold', 'double') ?? 0 };
    },
  },
  {
    name: 'save_as', javaClass: `${CORE}SaveAsAggregator`,
    properties: new Map([['metric_name', 'string'], ['tags', 'stringMap'], ['ttl', 'int'], ['add_saved_from', 'boolean']]),
    build(p, c) {
      // KairosDB fails only when writing (reference §6.2); the caller needs the name before running, to authorize it.
      const metricName = p.get('metric_name', 'string');
      const tags = p.get('tags', 'stringMap') ?? {};
      const addSavedFrom = p.get('add_saved_from', 'boolean') ?? true;
      // KairosDB builds the saved points' tags in a Guava ImmutableMap: a key given twice (a `tags` entry that a tag
      // grouper or add_saved_from also sets) is a 500 "Multiple entries with same key" once a group has data (found
      // against 1.2.1); refused here before anything runs, data or not.
      check(c, [
        [metricName === undefined, 'metric_name may not be null'],
        [metricName === '', 'metric_name may not be empty'],
        ...Object.entries(tags).map(([k, v]): [boolean, string] => [k === '' || v === '', `tags.${k} may not be empty`]),
        ...Object.keys(tags).map((k): [boolean, string] => [c.tagGroupNames.includes(k),
          `tags.${k} repeats a tag of the tag group_by: KairosDB refuses it (Multiple entries with same key)`]),
        [addSavedFrom && Object.hasOwn(tags, 'saved_from'),
          'tags.saved_from repeats the tag add_saved_from adds: KairosDB refuses it (Multiple entries with same key)'],
      ]);
      // `ttl` is accepted and ignored: the embedded store keeps points until they are deleted.
      return { name: 'save_as', metricName: metricName ?? '', tags, addSavedFrom, tagsToKeep: c.tagGroupNames };
    },
  },
  scriptType('js_function', 'JsFunctionAggregator'),
  scriptType('js_filter', 'JsFilterAggregator'),
  {
    name: 'js_range', javaClass: `${KISE}JsRangeAggregator`,
    properties: new Map([...RANGE_PROPS, ['script', 'string'], ['allocate_array', 'boolean'], ['array_result', 'boolean']]),
    // allocate_array only chose between an iterator and a list in Nashorn; the sandbox always gets arrays.
    build: (p, c) => ({ name: 'js_range', range: rangeOptions(p, c), script: requiredScript(p, c), arrayResult: p.get('array_result', 'boolean') ?? false }),
  },
];

/** Names are case-sensitive (reference §3.6). */
const BY_NAME = new Map(TYPES.map((type) => [type.name, type]));

/**
 * The `aggregators` array of one metric (reference §3.6 step 11), in array order, stopping at the first failure:
 * name (case-sensitive), then each member bound to a property, then the aggregator's bean rules.
 */
export function validateAggregators(raw: unknown, ctx: Omit<BuildContext, 'context'> & { metricContext: string }): AggregatorSpec[] {
  if (raw === undefined || raw === null) return [];
  const items = decodeLeaf(JsonArrayCodec, raw, `${ctx.metricContext}.aggregators`);
  return items.map((item, j) => {
    const context = `${ctx.metricContext}.aggregators[${j}]`;
    const object = decodeLeaf(JsonObjectCodec, item, context);
    const rawName = member(object, 'name');
    const name = rawName === undefined || rawName === null ? '' : decodeLeaf(JavaString, rawName, `${context}.name`);
    if (name === '') throw queryError(`${context} must have a name`);
    const type = BY_NAME.get(name);
    if (type === undefined) throw queryError(`${context}.${name} invalid aggregators name`);
    return type.build(bindProperties(object, context, type), { ...ctx, context });
  });
}

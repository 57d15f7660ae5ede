import { TIME_UNITS } from './query/query-model';

/**
 * GET /api/v1/features (reference §8): the groupers and aggregators this service runs, described in KairosDB's
 * metadata shape, which its web UI builds query forms from. The shape was read from KairosDB 1.2.1's answer; the
 * entries and texts are this engine's own: every aggregator it accepts (KairosDB's, plus `histogram` and the js_*),
 * with the properties it binds, and as `defaultValue` what it uses when a property is left out (KairosDB's list has
 * UI hints there, e.g. align_sampling "true" while the server's default is false). test/unit/kairos-features.test.ts
 * checks the list against the query validator.
 */

export interface FeatureValidation {
  readonly expression: string;
  readonly type: 'js';
  readonly message: string;
}

/** A property: a leaf (with type, options, defaultValue...) or an `Object` of properties. */
export interface FeatureProperty {
  readonly name: string;
  readonly label: string;
  readonly description: string;
  readonly optional: boolean;
  readonly type: string;
  readonly options?: readonly string[];
  readonly defaultValue?: string;
  readonly autocomplete?: string;
  readonly multiline: boolean;
  readonly validations?: readonly FeatureValidation[];
  readonly properties?: readonly FeatureProperty[];
}

/** One grouper or aggregator. */
export interface FeatureComponent {
  readonly name: string;
  readonly label: string;
  readonly description: string;
  readonly properties: readonly FeatureProperty[];
}

export interface Feature {
  readonly name: string;
  readonly label: string;
  readonly properties: readonly FeatureComponent[];
}

interface LeafOptions {
  defaultValue?: string;
  options?: readonly string[];
  optional?: boolean;
  validations?: readonly FeatureValidation[];
  autocomplete?: string;
  multiline?: boolean;
}

function leaf(name: string, label: string, type: string, description: string, o: LeafOptions = {}): FeatureProperty {
  return {
    name, label, description,
    optional: o.optional ?? false,
    type,
    options: o.options ?? [],
    defaultValue: o.defaultValue ?? '',
    autocomplete: o.autocomplete ?? '',
    multiline: o.multiline ?? false,
    validations: o.validations ?? [],
  };
}

const rule = (expression: string, message: string): FeatureValidation => ({ expression, type: 'js', message });
const positive = (what: string) => rule('value > 0', `${what} must be greater than 0.`);

const durationObject = (name: string, label: string, description: string): FeatureProperty => ({
  name, label, description, optional: false, type: 'Object', multiline: false,
  properties: [
    leaf('value', 'Value', 'long', 'How many units.', { defaultValue: '1', validations: [positive('Value')] }),
    leaf('unit', 'Unit', 'enum', 'The unit; calendar months and years where they apply.', { options: TIME_UNITS, defaultValue: 'MILLISECONDS' }),
  ],
});

const timeZone = leaf('time_zone', 'Time zone', 'String',
  'An IANA zone (Asia/Bangkok) for calendar buckets and alignment; the query\'s zone when left out, UTC by default.',
  { optional: true, defaultValue: 'UTC' });

/** Properties of every range aggregator (reference §6.1). */
const RANGE: readonly FeatureProperty[] = [
  leaf('align_end_time', 'Align end time', 'boolean', 'Each bucket\'s point takes the bucket\'s end time (after aligning).', { defaultValue: 'false' }),
  leaf('align_sampling', 'Align sampling', 'boolean',
    'Buckets start on a whole sampling unit (a whole hour, day, week, month...) in the time zone, not at the query start.',
    { defaultValue: 'false' }),
  leaf('align_start_time', 'Align start time', 'boolean', 'Each bucket\'s point takes the bucket\'s start time.', { defaultValue: 'false' }),
  durationObject('sampling', 'Sampling', 'The width of one bucket.'),
  timeZone,
];

const component = (name: string, label: string, description: string, properties: readonly FeatureProperty[] = []): FeatureComponent =>
  ({ name, label, description, properties });
const range = (name: string, label: string, description: string, extra: readonly FeatureProperty[] = []) =>
  component(name, label, description, [...RANGE, ...extra]);

const script = leaf('script', 'Script', 'String',
  'JavaScript run in a sandbox: a function body when it has a return statement, else an expression.', { multiline: true, defaultValue: 'value' });

const GROUPERS: readonly FeatureComponent[] = [
  component('bin', 'Bin', 'Groups points by the bin their value falls in.', [
    leaf('bins', 'Bin Values', 'array', 'Bin bounds, ascending: values below the first go to group 0, values from bin i on to group i + 1.',
      { defaultValue: '[]', validations: [rule('value.length > 0', 'The list can\'t be empty.')] }),
  ]),
  component('tag', 'Tag', 'Groups points by the values of tags; for openpie, tag attr is the shadow field.', [
    leaf('tags', 'Tags', 'array', 'The tags to group by.',
      { defaultValue: '[]', autocomplete: 'tags', validations: [rule('value.length > 0', 'Tags can\'t be empty.')] }),
  ]),
  component('time', 'Time', 'Groups points by time range, counted from the query start and wrapped after group_count ranges.', [
    leaf('group_count', 'Count', 'int', 'How many groups, e.g. 7 for days of the week.', { defaultValue: '1', validations: [positive('Count')] }),
    durationObject('range_size', 'Range Size', 'The width of one range.'),
  ]),
  component('value', 'Value', 'Groups points by value: each group spans range_size.', [
    leaf('range_size', 'Target Size', 'int', 'The width of one group of values.', { defaultValue: '1', validations: [positive('Target size')] }),
  ]),
];

const AGGREGATORS: readonly FeatureComponent[] = [
  range('avg', 'AVG', 'The average of each bucket.'),
  range('count', 'Count', 'The number of points in each bucket.'),
  range('dev', 'Dev', 'The sample standard deviation of each bucket, or the average plus or minus dev_count of them.', [
    leaf('return_type', 'Return type', 'enum', 'value: the deviation; pos_sd: average + dev_count deviations; neg_sd: average - dev_count deviations.',
      { options: ['value', 'pos_sd', 'neg_sd'], defaultValue: 'value', optional: true }),
    leaf('dev_count', 'Deviations', 'int', 'How many deviations pos_sd and neg_sd add or take away.', { defaultValue: '1', optional: true }),
  ]),
  component('diff', 'Diff', 'The difference between each point and the one before it.'),
  component('div', 'Div', 'Each value divided by the divisor.', [
    leaf('divisor', 'Divisor', 'double', 'What to divide by.', { defaultValue: '1', validations: [rule('value != 0', 'Divisor may not be zero.')] }),
  ]),
  component('filter', 'Filter', 'Drops the points whose value compares true with the threshold.', [
    leaf('filter_op', 'Filter operation', 'enum', 'The comparison: value OP threshold drops the point.',
      { options: ['LTE', 'LT', 'GTE', 'GT', 'EQUAL'], defaultValue: 'EQUAL' }),
    leaf('threshold', 'Threshold', 'double', 'The value compared with.', { defaultValue: '0.0' }),
  ]),
  range('first', 'First', 'The first point of each bucket.'),
  range('gaps', 'Gaps', 'Every point, and a null point at the start of each empty bucket.'),
  range('histogram', 'Histogram (percentile)', 'Percentile by its name before KairosDB 0.9.2.', [
    leaf('percentile', 'Percentile', 'double', 'A fraction between 0 and 1, e.g. 0.95.', { defaultValue: '0.5', validations: [positive('Percentile'), rule('value <= 1', 'Percentile must not be greater than 1.')] }),
  ]),
  component('js_filter', 'JS Filter', 'Keeps the points for which the script (value, timestamp) is true.', [{ ...script, defaultValue: 'value > 0' }]),
  component('js_function', 'JS Function', 'Replaces each value by the script\'s result (value, timestamp).', [script]),
  range('js_range', 'JS Range', 'Reduces each bucket to the script\'s result over values (or valueArray).', [
    { ...script, defaultValue: 'return valueArray.length' },
    leaf('allocate_array', 'Allocate array', 'boolean', 'Kept for the kise module\'s scripts: valueArray is always there.', { defaultValue: 'false', optional: true }),
    leaf('array_result', 'Array result', 'boolean', 'The script returns an array of numbers per bucket.', { defaultValue: 'false', optional: true }),
  ]),
  range('last', 'Last', 'The last point of each bucket.'),
  range('least_squares', 'Least Squares', 'Two points per bucket on the least-squares line through it.'),
  range('max', 'Max', 'The largest value of each bucket.'),
  range('min', 'Min', 'The smallest value of each bucket.'),
  range('percentile', 'Percentile', 'The given percentile of each bucket.', [
    leaf('percentile', 'Percentile', 'double', 'A fraction between 0 and 1, e.g. 0.95.', { defaultValue: '0.5', validations: [positive('Percentile'), rule('value <= 1', 'Percentile must not be greater than 1.')] }),
  ]),
  component('rate', 'Rate', 'The change per sampling unit between each point and the one before it.', [
    durationObject('sampling', 'Sampling', 'The unit the rate is per.'),
    timeZone,
  ]),
  component('sampler', 'Sampler', 'Each value per time unit since the point before it.', [
    leaf('unit', 'Time Unit', 'enum', 'The unit.', { options: TIME_UNITS, defaultValue: 'MILLISECONDS' }),
    timeZone,
  ]),
  component('save_as', 'Save As', 'Passes the points on and also stores them under another metric (a device the caller may read).', [
    leaf('metric_name', 'Save As', 'String', 'The metric to store under.', { defaultValue: '', validations: [rule('value.length > 0', 'The name can\'t be empty.')] }),
    leaf('add_saved_from', 'Add saved_from', 'boolean', 'Tags the stored points with saved_from = the source metric.', { defaultValue: 'true', optional: true }),
  ]),
  component('scale', 'Scale', 'Each value multiplied by the factor.', [
    leaf('factor', 'Factor', 'double', 'What to multiply by.', { defaultValue: '0.0' }),
  ]),
  component('sma', 'SMA', 'The simple moving average of the last size points.', [
    leaf('size', 'Size', 'int', 'How many points to average.', { defaultValue: '10', validations: [positive('Size')] }),
  ]),
  range('sum', 'Sum', 'The sum of each bucket.'),
  component('trim', 'Trim', 'Drops the first point, the last one, or both.', [
    leaf('trim', 'Trim', 'enum', 'Which end to drop; nothing is dropped when left out.', { options: ['FIRST', 'LAST', 'BOTH'], defaultValue: 'BOTH', optional: true }),
  ]),
];

export const FEATURES: readonly Feature[] = [
  { name: 'group_by', label: 'Group By', properties: GROUPERS },
  { name: 'aggregators', label: 'Aggregator', properties: AGGREGATORS },
];

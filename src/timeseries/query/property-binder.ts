import { KairosQueryError, queryError } from './kairos-query-error';
import {
  decodeLeaf, decodeZone, JavaBoolean, JavaDouble, JavaInt, JavaLong, JavaString, JsonArrayCodec, JsonObjectCodec,
  member, TimeUnitName,
} from './lenient-codecs';
import { DevReturnType, Duration, FilterOp, TimeUnit, TrimType } from './query-model';

/**
 * Binds the members of an aggregator or group_by object to its properties the way KairosDB's QueryParser.
 * deserializeProperties does (reference §6 "Parameter binding", §3.6): members in JSON order, `name` skipped, a
 * member with no property is an error naming the Java class, each value parsed to the property's type with Gson's
 * coercions; the first failure stops.
 */

interface PropTypes {
  duration: Duration;
  boolean: boolean;
  long: number;
  int: number;
  double: number;
  zone: string;
  unit: TimeUnit;
  string: string;
  stringMap: Record<string, string>;
  stringList: string[];
  doubleList: number[];
  trim: TrimType | undefined;
  filterOp: FilterOp | undefined;
  devReturn: DevReturnType;
}

export type PropKind = keyof PropTypes;
type PropValue = { [K in PropKind]: { kind: K; value: PropTypes[K] } }[PropKind];

export interface ProcessorType {
  /** The JSON name the client gave (`sum`, `time`). */
  readonly name: string;
  /** KairosDB's class, as its "no matching setter" message prints it. */
  readonly javaClass: string;
  readonly properties: ReadonlyMap<string, PropKind>;
}

/** The bound properties, with the JSON position of each (later members override earlier ones). */
export class BoundProperties {
  constructor(private readonly values: ReadonlyMap<string, { value: PropValue; position: number }>) {}

  position(key: string): number { return this.values.get(key)?.position ?? -1; }

  get<K extends PropKind>(key: string, kind: K): PropTypes[K] | undefined {
    const found = this.values.get(key)?.value;
    return found !== undefined && found.kind === kind ? (found.value as PropTypes[K]) : undefined;
  }
}

export function bindProperties(object: Record<string, unknown>, context: string, type: ProcessorType): BoundProperties {
  const values = new Map<string, { value: PropValue; position: number }>();
  Object.keys(object).forEach((key, position) => {
    if (key === 'name') return;
    const kind = type.properties.get(key);
    if (kind === undefined) {
      throw queryError(
        `Property '${key}' was specified for object '${type.name}' but no matching setter was found on 'class ${type.javaClass}'`,
      );
    }
    values.set(key, { value: parseProperty(kind, member(object, key), `${context}.${key}`, context), position });
  });
  return new BoundProperties(values);
}

const TRIM_TYPES: readonly TrimType[] = ['first', 'last', 'both'];
const FILTER_OPS: readonly FilterOp[] = ['lte', 'lt', 'gte', 'gt', 'equal'];
const DEV_TYPES: readonly DevReturnType[] = ['value', 'pos_sd', 'neg_sd'];

function parseProperty(kind: PropKind, raw: unknown, propContext: string, context: string): PropValue {
  if (raw === null) return nullValue(kind, propContext);
  switch (kind) {
    case 'duration': return { kind, value: parseDuration(raw, propContext, context) };
    case 'boolean': return { kind, value: decodeLeaf(JavaBoolean, raw, propContext) };
    case 'long': return { kind, value: decodeLeaf(JavaLong, raw, propContext) };
    case 'int': return { kind, value: decodeLeaf(JavaInt, raw, propContext) };
    case 'double': return { kind, value: decodeLeaf(JavaDouble, raw, propContext) };
    case 'zone': return { kind, value: decodeZone(raw, context) };
    case 'unit': return { kind, value: decodeLeaf(TimeUnitName, raw, context, '.') };
    case 'string': return { kind, value: decodeLeaf(JavaString, raw, propContext) };
    case 'stringMap': {
      const object = decodeLeaf(JsonObjectCodec, raw, propContext);
      const entries = Object.keys(object).map((k) => [k, decodeLeaf(JavaString, member(object, k), `${propContext}.${k}`)]);
      return { kind, value: Object.fromEntries(entries) as Record<string, string> };
    }
    case 'stringList': return { kind, value: decodeLeaf(JsonArrayCodec, raw, propContext).map((v, i) => decodeLeaf(JavaString, v, `${propContext}[${i}]`)) };
    case 'doubleList': return { kind, value: decodeLeaf(JsonArrayCodec, raw, propContext).map((v) => decodeLeaf(JavaDouble, v, propContext)) };
    case 'trim': return { kind, value: parseEnum(raw, TRIM_TYPES, context) };
    case 'filterOp': return { kind, value: parseEnum(raw, FILTER_OPS, context) };
    case 'devReturn': {
      // Gson's lower-case enum adapter: an exact lower-case name, anything else reads as null = the plain sd (§6.2).
      const text = decodeLeaf(JavaString, raw, propContext);
      return { kind, value: DEV_TYPES.find((d) => d === text) ?? 'value' };
    }
  }
}

/** JSON null: enums and zones read as "unset" (trim nothing, plain sd, UTC), the rest may not be null. */
function nullValue(kind: PropKind, propContext: string): PropValue {
  if (kind === 'trim' || kind === 'filterOp') return { kind, value: undefined };
  if (kind === 'devReturn') return { kind, value: 'value' };
  if (kind === 'zone') return { kind, value: 'UTC' };
  throw queryError(`${propContext} may not be null`);
}

/** A `{value, unit}` Duration, then its bean rules: value >= 1 and unit not null, both reported. */
function parseDuration(raw: unknown, propContext: string, context: string): Duration {
  const object = decodeLeaf(JsonObjectCodec, raw, propContext);
  let value = 0;
  let unit: TimeUnit | undefined;
  for (const key of Object.keys(object)) {
    const v = member(object, key);
    if (key === 'value' && v !== null) value = decodeLeaf(JavaLong, v, propContext);
    if (key === 'unit' && v !== null) unit = decodeLeaf(TimeUnitName, v, context, '.');
  }
  const problems: string[] = [];
  if (value < 1) problems.push(`${propContext}.value must be greater than or equal to 1`);
  if (unit === undefined) problems.push(`${propContext}.unit may not be null`);
  if (problems.length > 0 || unit === undefined) throw new KairosQueryError(problems);
  return { value, unit };
}

/** KairosDB's EnumDeserializer for trim and filter_op: any case; both messages say "trim type" (a KairosDB quirk). */
function parseEnum<T extends string>(raw: unknown, names: readonly T[], context: string): T {
  const text = decodeLeaf(JavaString, raw, context);
  const found = names.find((n) => n === text.toLowerCase());
  if (found !== undefined) return found;
  const quoted = names.map((n) => `'${n}'`);
  const list = `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
  throw queryError(`${context}.${text} is not a valid trim type, must be ${list}.`);
}


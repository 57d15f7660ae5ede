import { isJsonObject, Json } from '../core/json';
import { ExpressionError } from './errors';
import { deepEqual, roundTo, toText, typeName } from './values';

/** What a helper may do besides computing: spend evaluation steps, and fail at its call's place. */
export interface CallContext {
  spend(steps: number): void;
  fail(message: string): never;
}

type Helper = (args: Json[], ctx: CallContext) => Json;

const arity = (name: string, args: Json[], min: number, max: number, ctx: CallContext) => {
  if (args.length < min || args.length > max) {
    const wanted = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
    ctx.fail(`${name}() takes ${wanted} argument${wanted === '1' ? '' : 's'}, got ${args.length}`);
  }
};

function arrayArg(name: string, v: Json, ctx: CallContext): Json[] {
  if (!Array.isArray(v)) ctx.fail(`${name}() expects an array, got ${typeName(v)}`);
  ctx.spend(v.length);
  return v;
}

function numberArg(name: string, v: Json, ctx: CallContext): number {
  if (typeof v !== 'number') ctx.fail(`${name}() expects a number, got ${typeName(v)}`);
  return v;
}

function integerArg(name: string, v: Json, ctx: CallContext): number {
  const n = numberArg(name, v, ctx);
  if (!Number.isInteger(n)) ctx.fail(`${name}() expects a whole number, got ${n}`);
  return n;
}

/** The numbers of `min(1,2)` or `min([1,2])`. */
function numbersOf(name: string, args: Json[], ctx: CallContext): number[] {
  const list = args.length === 1 && Array.isArray(args[0]) ? arrayArg(name, args[0], ctx) : args;
  if (list.length === 0) ctx.fail(`${name}() needs at least one number`);
  return list.map((v) => numberArg(name, v, ctx));
}

/**
 * The helpers of netpie reference §7.2 (`concat`, `slice`, `sort`, `reverse`) and a few more that need no host
 * access. A null-prototype table: a call can only ever reach these functions.
 */
const HELPER_TABLE: Record<string, Helper> = {
  /** Joins arrays; `null` adds nothing (so `concat($$.top5,[$.temp])` works before top5 exists); other values are appended. */
  concat(args, ctx) {
    const out: Json[] = [];
    for (const a of args) {
      if (Array.isArray(a)) {
        ctx.spend(a.length);
        out.push(...a);
      } else if (a !== null) out.push(a);
    }
    return out;
  },
  /** JavaScript's slice on an array or a string: `slice(a,-5)` is the last five, `slice(a,0,3)` the first three. */
  slice(args, ctx) {
    arity('slice', args, 2, 3, ctx);
    const [target, start, end] = args;
    const from = integerArg('slice', start, ctx);
    const to = end === undefined ? undefined : integerArg('slice', end, ctx);
    if (typeof target === 'string') {
      ctx.spend(target.length);
      return target.slice(from, to);
    }
    return arrayArg('slice', target, ctx).slice(from, to);
  },
  /** Sorts numbers or strings; `dir` 1 (the default) ascending, -1 descending. Mixed types are an error. */
  sort(args, ctx) {
    arity('sort', args, 1, 2, ctx);
    const list = arrayArg('sort', args[0], ctx);
    const dir = args.length > 1 ? integerArg('sort', args[1], ctx) : 1;
    if (dir !== 1 && dir !== -1) ctx.fail(`sort() direction must be 1 or -1, got ${dir}`);
    const kind = list.length > 0 ? typeof list[0] : 'number';
    if ((kind !== 'number' && kind !== 'string') || list.some((v) => typeof v !== kind)) {
      ctx.fail('sort() sorts an array of numbers or an array of strings');
    }
    ctx.spend(list.length * Math.ceil(Math.log2(list.length + 1)));
    return [...list].sort((a, b) => (a! < b! ? -dir : a! > b! ? dir : 0));
  },
  reverse(args, ctx) {
    arity('reverse', args, 1, 1, ctx);
    return [...arrayArg('reverse', args[0], ctx)].reverse();
  },
  /** Elements of an array, characters of a string, members of an object. */
  length(args, ctx) {
    arity('length', args, 1, 1, ctx);
    const [v] = args;
    if (typeof v === 'string' || Array.isArray(v)) return v.length;
    if (isJsonObject(v)) return Object.keys(v).length;
    return ctx.fail(`length() expects an array, a string or an object, got ${typeName(v)}`);
  },
  /** True when the array holds the value (deep equality). */
  includes(args, ctx) {
    arity('includes', args, 2, 2, ctx);
    return arrayArg('includes', args[0], ctx).some((v) => deepEqual(v, args[1]));
  },
  abs: (args, ctx) => (arity('abs', args, 1, 1, ctx), Math.abs(numberArg('abs', args[0], ctx))),
  floor: (args, ctx) => (arity('floor', args, 1, 1, ctx), Math.floor(numberArg('floor', args[0], ctx))),
  ceil: (args, ctx) => (arity('ceil', args, 1, 1, ctx), Math.ceil(numberArg('ceil', args[0], ctx))),
  sqrt: (args, ctx) => (arity('sqrt', args, 1, 1, ctx), Math.sqrt(numberArg('sqrt', args[0], ctx))),
  /** `round(x)` to a whole number, `round(x, dp)` to dp decimal places (0-15), halves away from zero. */
  round(args, ctx) {
    arity('round', args, 1, 2, ctx);
    const dp = args.length > 1 ? integerArg('round', args[1], ctx) : 0;
    if (dp < 0 || dp > 15) ctx.fail(`round() takes 0 to 15 decimal places, got ${dp}`);
    return roundTo(numberArg('round', args[0], ctx), dp);
  },
  min: (args, ctx) => Math.min(...numbersOf('min', args, ctx)),
  max: (args, ctx) => Math.max(...numbersOf('max', args, ctx)),
  sum: (args, ctx) => (arity('sum', args, 1, 1, ctx), arrayArg('sum', args[0], ctx).reduce<number>((s, v) => s + numberArg('sum', v, ctx), 0)),
  avg(args, ctx) {
    const list = numbersOf('avg', args, ctx);
    return list.reduce((s, v) => s + v, 0) / list.length;
  },
  /** A number from a number, a numeric string or a boolean (1/0); anything else is an error. */
  number(args, ctx) {
    arity('number', args, 1, 1, ctx);
    const [v] = args;
    if (typeof v === 'number') return v;
    if (typeof v === 'boolean') return v ? 1 : 0;
    if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
    return ctx.fail(`number() cannot read ${JSON.stringify(v)} as a number`);
  },
  string: (args, ctx) => (arity('string', args, 1, 1, ctx), toText(args[0])),
};
const HELPERS: Readonly<Record<string, Helper>> = Object.assign(Object.create(null) as Record<string, Helper>, HELPER_TABLE);

export function helperNamed(name: string): Helper | undefined {
  return HELPERS[name];
}

export const HELPER_NAMES: readonly string[] = Object.keys(HELPERS);

export function unknownHelper(name: string, position: number): ExpressionError {
  return new ExpressionError('evaluation', `unknown function ${name}(); known: ${HELPER_NAMES.join(', ')}`, position);
}

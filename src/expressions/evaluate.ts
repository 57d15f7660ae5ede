import { isJsonObject, Json } from '../core/json';
import { BinaryOperator, Expr } from './ast';
import { ExpressionError } from './errors';
import { CallContext, helperNamed, unknownHelper } from './functions';
import { EXPRESSION_LIMITS } from './limits';
import { deepEqual, toText, truthy, typeName } from './values';

/** The variables an expression may read, by name (`$`, `$$`, `$NEW`, `context` …). Others are an error. */
export type Variables = ReadonlyMap<string, Json>;

/**
 * Evaluates a parsed expression over JSON values only. There is no way out to the host: variables come from
 * `variables`, members are read from the values' own properties (never a prototype), and calls reach only the
 * helper table. Every evaluation has a budget of steps (EXPRESSION_LIMITS). Throws ExpressionError('evaluation').
 */
export function evaluate(expr: Expr, variables: Variables): Json {
  let steps = 0;
  const spend = (n: number, position: number) => {
    steps += n;
    if (steps > EXPRESSION_LIMITS.maxSteps) {
      throw new ExpressionError('evaluation', `expression took more than ${EXPRESSION_LIMITS.maxSteps} steps`, position);
    }
  };
  const fail = (message: string, position: number): never => {
    throw new ExpressionError('evaluation', message, position);
  };

  function checked(v: Json, position: number): Json {
    if (typeof v === 'number' && !Number.isFinite(v)) fail('result is not a finite number', position);
    if (typeof v === 'string' && v.length > EXPRESSION_LIMITS.maxStringLength) {
      fail(`string longer than ${EXPRESSION_LIMITS.maxStringLength} characters`, position);
    }
    if (Array.isArray(v) && v.length > EXPRESSION_LIMITS.maxArrayLength) {
      fail(`array longer than ${EXPRESSION_LIMITS.maxArrayLength} elements`, position);
    }
    return v;
  }

  function run(e: Expr): Json {
    spend(1, e.position);
    switch (e.kind) {
      case 'literal':
        return e.value;
      case 'array':
        return checked(e.items.map(run), e.position);
      case 'variable':
        if (!variables.has(e.name)) return fail(`unknown variable ${e.name}`, e.position);
        return variables.get(e.name)!;
      case 'member':
        return memberOf(run(e.object), e.name);
      case 'index': {
        const object = run(e.object);
        const index = run(e.index);
        if (Array.isArray(object)) return typeof index === 'number' && Number.isInteger(index) ? (object[index] ?? null) : null;
        return typeof index === 'string' ? memberOf(object, index) : null;
      }
      case 'call': {
        const helper = helperNamed(e.name);
        if (!helper) throw unknownHelper(e.name, e.position);
        const args = e.args.map(run);
        const ctx: CallContext = { spend: (n) => spend(n, e.position), fail: (m) => fail(m, e.position) };
        return checked(helper(args, ctx), e.position);
      }
      case 'unary': {
        const v = run(e.operand);
        if (e.op === '!') return !truthy(v);
        if (typeof v !== 'number') return fail(`cannot apply ${e.op} to ${typeName(v)}`, e.position);
        return e.op === '-' ? -v : v;
      }
      case 'logical': {
        const left = run(e.left);
        if (e.op === '??') return left !== null ? left : run(e.right);
        if (e.op === '&&') return truthy(left) && truthy(run(e.right));
        return truthy(left) || truthy(run(e.right));
      }
      case 'conditional':
        return truthy(run(e.test)) ? run(e.then) : run(e.otherwise);
      case 'binary':
        return checked(binary(e.op, run(e.left), run(e.right), e.position), e.position);
    }
  }

  function binary(op: BinaryOperator, a: Json, b: Json, position: number): Json {
    switch (op) {
      case '==':
      case '===':
        return deepEqual(a, b);
      case '!=':
      case '!==':
        return !deepEqual(a, b);
      case '+':
        if (typeof a === 'number' && typeof b === 'number') return a + b;
        if (typeof a === 'string' || typeof b === 'string') {
          const text = toText(a) + toText(b);
          spend(Math.ceil(text.length / 64), position);
          return text;
        }
        return fail(`cannot add ${typeName(a)} and ${typeName(b)} (use concat() to join arrays)`, position);
      case '<':
      case '<=':
      case '>':
      case '>=':
        return compare(op, a, b, position);
      case 'in':
        return membership(a, b, position);
      default:
        return arithmetic(op, a, b, position);
    }
  }

  function arithmetic(op: '-' | '*' | '/' | '//' | '%' | '^', a: Json, b: Json, position: number): number {
    if (typeof a !== 'number' || typeof b !== 'number') {
      return fail(`cannot apply ${op} to ${typeName(a)} and ${typeName(b)}`, position);
    }
    if ((op === '/' || op === '//' || op === '%') && b === 0) return fail('division by zero', position);
    switch (op) {
      case '-':
        return a - b;
      case '*':
        return a * b;
      case '/':
        return a / b;
      case '//':
        return Math.floor(a / b);
      case '%':
        return a % b;
      case '^':
        return a ** b;
    }
  }

  /** Numbers with numbers, strings with strings. A comparison with null is false (an absent field), not an error. */
  function compare(op: '<' | '<=' | '>' | '>=', a: Json, b: Json, position: number): boolean {
    if (a === null || b === null) return false;
    if (!((typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string'))) {
      return fail(`cannot compare ${typeName(a)} with ${typeName(b)}`, position);
    }
    switch (op) {
      case '<':
        return a < b;
      case '<=':
        return a <= b;
      case '>':
        return a > b;
      case '>=':
        return a >= b;
    }
  }

  /** `x in array` (an equal element), `"sub" in "string"`, `"key" in object`; `x in null` is false. */
  function membership(a: Json, b: Json, position: number): boolean {
    if (b === null) return false;
    if (Array.isArray(b)) {
      spend(b.length, position);
      return b.some((v) => deepEqual(v, a));
    }
    if (typeof b === 'string') {
      if (typeof a !== 'string') return fail(`"in" a string needs a string on its left, got ${typeName(a)}`, position);
      spend(Math.ceil(b.length / 64), position);
      return b.includes(a);
    }
    if (isJsonObject(b)) {
      if (typeof a !== 'string') return fail(`"in" an object needs a member name on its left, got ${typeName(a)}`, position);
      return Object.hasOwn(b, a);
    }
    return fail(`"in" needs an array, a string or an object on its right, got ${typeName(b)}`, position);
  }

  return run(expr);
}

/** An object's own member, or null: absent fields read as null (netpie reference §8.1, `$NEW.path`). */
function memberOf(object: Json, name: string): Json {
  return isJsonObject(object) && Object.hasOwn(object, name) ? object[name] : null;
}

import { AppError } from '../core/errors';
import { isJsonObject, Json } from '../core/json';
import { Expr } from '../expressions/ast';
import { compileExpression, referenceProblem } from '../expressions/compile';
import { ExpressionError } from '../expressions/errors';
import { Variables } from '../expressions/evaluate';
import { deepEqual, truthy, typeName } from '../expressions/values';

/** The variables of a filter: `$`, the shadow data; `$device`, its place and shadow metadata. */
const FILTER_VARIABLES: ReadonlySet<string> = new Set(['$', '$device']);

/** Whether a device matches; throws ExpressionError when the filter cannot be evaluated on it. */
export type FleetFilter = (variables: Variables) => boolean;

type Step = (variables: Variables) => Json;

/**
 * A fleet query's filter, parsed once (expressions/compile.ts); 400 INVALID_FILTER with the expression's error.
 *
 * The filters a fleet query is made for (`$.battery < 20 && $.fw != "2.1"`: members, literals, comparisons, `!`, `&&`,
 * `||`, `??`, `? :`) run as a tree of closures made once, since evaluate() is paid 100,000 times a query; they follow
 * evaluate()'s rules exactly (test/unit/fleet-filter.test.ts compares the two). Any other expression (calls,
 * arithmetic, `in`, indexing, arrays) runs through evaluate() itself, with its step budget.
 */
export function compileFilter(source: string): FleetFilter {
  let expr: Expr;
  let run: (variables: Variables) => Json;
  try {
    ({ expr, run } = compileExpression(source));
  } catch (err) {
    if (err instanceof ExpressionError) throw new AppError('INVALID_FILTER', `filter: ${err.message}`);
    throw err;
  }
  const problem = referenceProblem(expr, FILTER_VARIABLES);
  if (problem !== undefined) throw new AppError('INVALID_FILTER', `filter: ${problem}`);
  const fast = closureOf(expr);
  return fast ? (variables) => truthy(fast(variables)) : (variables) => truthy(run(variables));
}

const fail = (message: string, position: number): never => {
  throw new ExpressionError('evaluation', message, position);
};

/** The closure of a subset expression, or undefined when any part of it is outside the subset. */
function closureOf(e: Expr): Step | undefined {
  switch (e.kind) {
    case 'literal': {
      const value = e.value;
      return () => value;
    }
    case 'variable': {
      const name = e.name;
      return (variables) => (variables.has(name) ? variables.get(name)! : fail(`unknown variable ${name}`, e.position));
    }
    case 'member': {
      const object = closureOf(e.object);
      const name = e.name;
      return object && ((variables) => {
        const value = object(variables);
        return isJsonObject(value) && Object.hasOwn(value, name) ? value[name] : null;
      });
    }
    case 'unary': {
      const operand = closureOf(e.operand);
      if (!operand) return undefined;
      if (e.op === '!') return (variables) => !truthy(operand(variables));
      const negate = e.op === '-';
      return (variables) => {
        const v = operand(variables);
        if (typeof v !== 'number') return fail(`cannot apply ${e.op} to ${typeName(v)}`, e.position);
        return negate ? -v : v;
      };
    }
    case 'logical':
      return logicalOf(e.op, closureOf(e.left), closureOf(e.right));
    case 'conditional': {
      const [test, then, otherwise] = [closureOf(e.test), closureOf(e.then), closureOf(e.otherwise)];
      return test && then && otherwise && ((variables) => (truthy(test(variables)) ? then(variables) : otherwise(variables)));
    }
    case 'binary':
      return binaryOf(e, closureOf(e.left), closureOf(e.right));
    default:
      return undefined;
  }
}

function logicalOf(op: string, left: Step | undefined, right: Step | undefined): Step | undefined {
  if (!left || !right) return undefined;
  if (op === '??') return (variables) => {
    const v = left(variables);
    return v !== null ? v : right(variables);
  };
  if (op === '&&') return (variables) => truthy(left(variables)) && truthy(right(variables));
  return (variables) => truthy(left(variables)) || truthy(right(variables));
}

function binaryOf(e: Extract<Expr, { kind: 'binary' }>, left: Step | undefined, right: Step | undefined): Step | undefined {
  if (!left || !right) return undefined;
  switch (e.op) {
    case '==':
    case '===':
      return (variables) => deepEqual(left(variables), right(variables));
    case '!=':
    case '!==':
      return (variables) => !deepEqual(left(variables), right(variables));
    case '<':
    case '<=':
    case '>':
    case '>=': {
      const op = e.op;
      return (variables) => {
        const a = left(variables);
        const b = right(variables);
        // As evaluate(): a comparison with null (an absent field) is false; numbers with numbers, strings with strings.
        if (a === null || b === null) return false;
        if (!((typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string'))) {
          return fail(`cannot compare ${typeName(a)} with ${typeName(b)}`, e.position);
        }
        return op === '<' ? a < b : op === '<=' ? a <= b : op === '>' ? a > b : a >= b;
      };
    }
    default:
      return undefined;
  }
}

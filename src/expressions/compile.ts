import { Json } from '../core/json';
import { Expr } from './ast';
import { ExpressionError } from './errors';
import { evaluate, Variables } from './evaluate';
import { helperNamed, HELPER_NAMES } from './functions';
import { parseExpression } from './parser';

/** A parsed expression, ready to run many times (a batch runs a schema's expressions once per item). */
export interface Compiled {
  readonly source: string;
  readonly expr: Expr;
  run(variables: Variables): Json;
}

/** Parsed expressions by source; bounded, the oldest entry goes first. Parsing is pure, so sharing is safe. */
const cache = new Map<string, Expr>();
const CACHE_SIZE = 2000;

/** Parses (or finds parsed) `source`; throws ExpressionError('syntax'). */
export function compileExpression(source: string): Compiled {
  let expr = cache.get(source);
  if (!expr) {
    expr = parseExpression(source);
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
    cache.set(source, expr);
  }
  const parsed = expr;
  return { source, expr: parsed, run: (variables) => evaluate(parsed, variables) };
}

/**
 * What is wrong with an expression before it is ever run, or undefined: its syntax, a variable outside `variables`
 * (a schema transform knows only `$` and `$$`) or an unknown function. For codecs that check text on the way in.
 */
export function expressionProblem(source: string, variables: ReadonlySet<string>): string | undefined {
  let expr: Expr;
  try {
    expr = compileExpression(source).expr;
  } catch (err) {
    if (err instanceof ExpressionError) return err.message;
    throw err;
  }
  return referenceProblem(expr, variables);
}

/** An unknown variable or function of a parsed expression, or undefined. */
export function referenceProblem(expr: Expr, variables: ReadonlySet<string>): string | undefined {
  const names = new Set<string>();
  const calls = new Set<string>();
  collect(expr, names, calls);
  const unknownVariable = [...names].find((n) => !variables.has(n));
  if (unknownVariable !== undefined) return `unknown variable ${unknownVariable}; known here: ${[...variables].join(', ')}`;
  const unknownCall = [...calls].find((n) => !helperNamed(n));
  if (unknownCall !== undefined) return `unknown function ${unknownCall}(); known: ${HELPER_NAMES.join(', ')}`;
  return undefined;
}

function collect(expr: Expr, names: Set<string>, calls: Set<string>): void {
  if (expr.kind === 'variable') names.add(expr.name);
  if (expr.kind === 'call') calls.add(expr.name);
  for (const child of childrenOf(expr)) collect(child, names, calls);
}

function childrenOf(expr: Expr): Expr[] {
  switch (expr.kind) {
    case 'array':
      return expr.items;
    case 'call':
      return expr.args;
    case 'member':
      return [expr.object];
    case 'index':
      return [expr.object, expr.index];
    case 'unary':
      return [expr.operand];
    case 'binary':
    case 'logical':
      return [expr.left, expr.right];
    case 'conditional':
      return [expr.test, expr.then, expr.otherwise];
    default:
      return [];
  }
}

import { BinaryOperator, Expr, LogicalOperator } from './ast';
import { ExpressionError } from './errors';
import { Token, tokenize } from './lexer';
import { EXPRESSION_LIMITS } from './limits';

/**
 * Binding powers of the infix operators, loosest first (a Pratt parser). `^` binds tighter than a sign, so
 * `-2^2` is -4 as in mathematics; `^` and `?:` group from the right.
 */
const INFIX: Readonly<Record<string, { power: number; right?: boolean }>> = {
  '?': { power: 1, right: true },
  '??': { power: 2 },
  '||': { power: 3 },
  '&&': { power: 4 },
  '==': { power: 5 }, '===': { power: 5 }, '!=': { power: 5 }, '!==': { power: 5 },
  '<': { power: 6 }, '<=': { power: 6 }, '>': { power: 6 }, '>=': { power: 6 }, in: { power: 6 },
  '+': { power: 7 }, '-': { power: 7 },
  '*': { power: 8 }, '/': { power: 8 }, '//': { power: 8 }, '%': { power: 8 },
  '^': { power: 10, right: true },
};
const PREFIX_POWER = 9;
const POSTFIX_POWER = 11;
const LOGICAL = new Set<string>(['&&', '||', '??']);
const KEYWORDS: Readonly<Record<string, boolean | null>> = { true: true, false: false, null: null };

/**
 * Parses one expression of the language of netpie reference §7.2 and §8.1 (arithmetic, comparison, logic, string
 * `+`, `in`, `?:`, `??`, array literals, `$.path` / `$$.path` / `$NAME.path` variables, `[index]` and helper calls).
 * Throws ExpressionError('syntax') with the position of the problem. Never evaluates anything.
 */
export function parseExpression(source: string): Expr {
  if (source.length > EXPRESSION_LIMITS.maxLength) {
    throw new ExpressionError('syntax', `expression is ${source.length} characters long; the limit is ${EXPRESSION_LIMITS.maxLength}`);
  }
  const tokens = tokenize(source);
  let at = 0;
  const peek = (): Token => tokens[at];
  const next = (): Token => tokens[at++];
  const isOp = (t: Token, text: string) => (t.kind === 'operator' || (t.kind === 'name' && text === 'in')) && t.text === text;
  const expect = (text: string): Token => {
    const t = next();
    if (!isOp(t, text)) throw unexpected(t, `expected "${text}"`);
    return t;
  };

  function parse(minPower: number, depth: number): Expr {
    if (depth > EXPRESSION_LIMITS.maxDepth) {
      throw new ExpressionError('syntax', `expression is nested more than ${EXPRESSION_LIMITS.maxDepth} levels deep`, peek().position);
    }
    let left = prefix(depth);
    for (;;) {
      const t = peek();
      if (t.kind === 'member' || isOp(t, '[')) {
        left = postfix(left, depth);
        continue;
      }
      const op = t.kind === 'operator' || (t.kind === 'name' && t.text === 'in') ? INFIX[t.text] : undefined;
      if (!op || op.power <= minPower) return left;
      next();
      const rightPower = op.right ? op.power - 1 : op.power;
      if (t.text === '?') {
        const then = parse(0, depth + 1);
        expect(':');
        const otherwise = parse(rightPower, depth + 1);
        left = { kind: 'conditional', test: left, then, otherwise, position: t.position };
      } else if (LOGICAL.has(t.text)) {
        left = { kind: 'logical', op: t.text as LogicalOperator, left, right: parse(rightPower, depth + 1), position: t.position };
      } else {
        left = { kind: 'binary', op: t.text as BinaryOperator, left, right: parse(rightPower, depth + 1), position: t.position };
      }
    }
  }

  function postfix(object: Expr, depth: number): Expr {
    const t = next();
    if (t.kind === 'member') return { kind: 'member', object, name: t.text, position: object.position };
    const index = parse(0, depth + 1);
    expect(']');
    return { kind: 'index', object, index, position: object.position };
  }

  function prefix(depth: number): Expr {
    const t = next();
    const position = t.position;
    switch (t.kind) {
      case 'number':
        return { kind: 'literal', value: t.value!, position };
      case 'string':
        return { kind: 'literal', value: t.text, position };
      case 'variable':
        return { kind: 'variable', name: t.text, position };
      case 'name': {
        if (Object.hasOwn(KEYWORDS, t.text)) return { kind: 'literal', value: KEYWORDS[t.text], position };
        if (!isOp(peek(), '(')) return { kind: 'variable', name: t.text, position };
        next();
        return { kind: 'call', name: t.text, args: list(')', depth), position };
      }
      case 'operator':
        if (t.text === '(') {
          const inner = parse(0, depth + 1);
          expect(')');
          return inner;
        }
        if (t.text === '[') return { kind: 'array', items: list(']', depth), position };
        if (t.text === '-' || t.text === '+' || t.text === '!') {
          return { kind: 'unary', op: t.text, operand: parse(t.text === '!' ? POSTFIX_POWER - 1 : PREFIX_POWER, depth + 1), position };
        }
        throw unexpected(t, 'expected a value');
      default:
        throw unexpected(t, 'expected a value');
    }
  }

  /** Comma-separated expressions up to `close` (the opening bracket is already read). */
  function list(close: string, depth: number): Expr[] {
    const items: Expr[] = [];
    if (isOp(peek(), close)) {
      next();
      return items;
    }
    for (;;) {
      items.push(parse(0, depth + 1));
      const t = next();
      if (isOp(t, close)) return items;
      if (!isOp(t, ',')) throw unexpected(t, `expected "," or "${close}"`);
    }
  }

  const expr = parse(0, 0);
  const rest = peek();
  if (rest.kind !== 'end') throw unexpected(rest, 'expected an operator or the end of the expression');
  return expr;
}

function unexpected(t: Token, why: string): ExpressionError {
  const found = t.kind === 'end' ? 'the end' : t.kind === 'string' ? 'a string' : t.kind === 'member' ? `".${t.text}"` : `"${t.text}"`;
  return new ExpressionError('syntax', `${why}, found ${found}`, t.position);
}

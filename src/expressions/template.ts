import { Json } from '../core/json';
import { compileExpression, Compiled, referenceProblem } from './compile';
import { ExpressionError } from './errors';
import { Variables } from './evaluate';
import { EXPRESSION_LIMITS } from './limits';
import { toText } from './values';

/** A run of literal text, or a `{{ }}` hole, in the order they are written. */
export type TemplatePart = { text: string } | { expr: Compiled; position: number };

/** A text with `{{ expression }}` holes (netpie reference §8.1, §8.3), parsed once. */
export interface Template {
  readonly source: string;
  /** The parsed `{{ }}` holes, in order. */
  readonly holes: readonly Compiled[];
  /** Literal text and holes, in order (`holes` are the holes among them). */
  readonly parts: readonly TemplatePart[];
  /** The text with every hole replaced by its value as text (`toText`), passed through `encode` when given. */
  render(variables: Variables, encode?: (text: string) => string): string;
  /** The text with hole number `index` (from 0) replaced by what `fillHole` makes of its value. */
  fill(variables: Variables, fillHole: (value: Json, index: number) => string): string;
  /** The value of a template that is exactly one hole (`{{ $NEW.temp }}`), so context variables keep their type. */
  value(variables: Variables): Json;
}

/** Parses a template; throws ExpressionError('syntax') naming the hole at fault. */
export function parseTemplate(source: string): Template {
  if (source.length > EXPRESSION_LIMITS.maxTemplateLength) {
    throw new ExpressionError('syntax', `template is ${source.length} characters long; the limit is ${EXPRESSION_LIMITS.maxTemplateLength}`);
  }
  const parts: TemplatePart[] = [];
  let at = 0;
  while (at < source.length) {
    const open = source.indexOf('{{', at);
    if (open < 0) break;
    const close = source.indexOf('}}', open + 2);
    if (close < 0) throw new ExpressionError('syntax', '"{{" is not closed by "}}"', open);
    if (open > at) parts.push({ text: source.slice(at, open) });
    const inner = source.slice(open + 2, close);
    if (inner.trim() === '') throw new ExpressionError('syntax', 'empty "{{ }}"', open);
    try {
      parts.push({ expr: compileExpression(inner), position: open });
    } catch (err) {
      if (err instanceof ExpressionError && err.position !== undefined) {
        throw new ExpressionError('syntax', err.message.replace(/ \(at character \d+\)$/, ''), open + 2 + err.position);
      }
      throw err;
    }
    at = close + 2;
  }
  if (at < source.length) parts.push({ text: source.slice(at) });

  const evaluatePart = (p: { expr: Compiled; position: number }, variables: Variables): Json => {
    try {
      return p.expr.run(variables);
    } catch (err) {
      if (err instanceof ExpressionError) throw new ExpressionError('evaluation', `{{ ${p.expr.source.trim()} }}: ${err.message}`);
      throw err;
    }
  };

  const fill = (variables: Variables, fillHole: (value: Json, index: number) => string): string => {
    let out = '';
    let index = 0;
    for (const p of parts) out += 'text' in p ? p.text : fillHole(evaluatePart(p, variables), index++);
    if (out.length > EXPRESSION_LIMITS.maxStringLength) {
      throw new ExpressionError('evaluation', `rendered text is longer than ${EXPRESSION_LIMITS.maxStringLength} characters`);
    }
    return out;
  };
  const render = (variables: Variables, encode = (s: string) => s) => fill(variables, (value) => encode(toText(value)));

  return {
    source,
    holes: parts.flatMap((p) => ('expr' in p ? [p.expr] : [])),
    parts,
    render,
    fill,
    value(variables) {
      const [only] = parts;
      if (parts.length === 1 && 'expr' in only) return evaluatePart(only, variables);
      return render(variables);
    },
  };
}

/** What is wrong with a template (syntax, unknown variables or functions in a hole), or undefined; for codecs. */
export function templateProblem(source: string, variables: ReadonlySet<string>): string | undefined {
  try {
    for (const hole of parseTemplate(source).holes) {
      const problem = referenceProblem(hole.expr, variables);
      if (problem) return `{{ ${hole.source.trim()} }}: ${problem}`;
    }
    return undefined;
  } catch (err) {
    if (err instanceof ExpressionError) return err.message;
    throw err;
  }
}

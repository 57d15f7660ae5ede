import { ExpressionError } from './errors';

export type TokenKind = 'number' | 'string' | 'name' | 'variable' | 'member' | 'operator' | 'end';

export interface Token {
  kind: TokenKind;
  /** The number's value, the string's contents, the name, the variable (`$`, `$$`, `$NEW`), the member or the operator. */
  text: string;
  value?: number;
  position: number;
}

/** Longest first, so `===` is not read as `==` then `=`. */
const OPERATORS = ['===', '!==', '==', '!=', '<=', '>=', '&&', '||', '??', '//', '<', '>', '+', '-', '*', '/', '%', '^', '!', '?', ':', '(', ')', '[', ']', ',']
  .sort((a, b) => b.length - a.length);

const NAME_START = /[A-Za-z_]/;
const NAME_PART = /[A-Za-z0-9_]/;
const NUMBER = /^\d+(\.\d+)?([eE][+-]?\d+)?/;
const ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '\\': '\\', '/': '/', "'": "'", '"': '"' };

/**
 * Splits an expression into tokens. Field names after a dot may start with a digit (`$.1st`), since schema names
 * are `[A-Za-z0-9_]` (netpie reference §7.1); so `.name` is one token, read right after the dot.
 */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const nameAt = (from: number): string => {
    let end = from;
    while (end < source.length && NAME_PART.test(source[end])) end++;
    return source.slice(from, end);
  };
  while (i < source.length) {
    const c = source[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const start = i;
    if (c === '$') {
      // `$` (incoming), `$$` (previous) or `$NAME` (trigger variables such as $NEW, $DEVICEID).
      const text = source[i + 1] === '$' ? '$$' : `$${NAME_START.test(source[i + 1] ?? '') ? nameAt(i + 1) : ''}`;
      tokens.push({ kind: 'variable', text, position: start });
      i += text.length;
      continue;
    }
    if (c === '.') {
      const name = nameAt(i + 1);
      if (name === '') throw new ExpressionError('syntax', 'expected a field name after "."', start);
      tokens.push({ kind: 'member', text: name, position: start });
      i += 1 + name.length;
      continue;
    }
    if (/\d/.test(c)) {
      const text = NUMBER.exec(source.slice(i))![0];
      tokens.push({ kind: 'number', text, value: Number(text), position: start });
      i += text.length;
      continue;
    }
    if (NAME_START.test(c)) {
      const text = nameAt(i);
      tokens.push({ kind: 'name', text, position: start });
      i += text.length;
      continue;
    }
    if (c === '"' || c === "'") {
      const { text, end } = readString(source, i);
      tokens.push({ kind: 'string', text, position: start });
      i = end;
      continue;
    }
    const op = OPERATORS.find((o) => source.startsWith(o, i));
    if (!op) throw new ExpressionError('syntax', `unexpected character ${JSON.stringify(c)}`, start);
    tokens.push({ kind: 'operator', text: op, position: start });
    i += op.length;
  }
  tokens.push({ kind: 'end', text: '', position: source.length });
  return tokens;
}

/** A quoted string with JSON's escapes plus `\'`; returns its contents and the index after the closing quote. */
function readString(source: string, open: number): { text: string; end: number } {
  const quote = source[open];
  let out = '';
  let i = open + 1;
  while (i < source.length) {
    const c = source[i];
    if (c === quote) return { text: out, end: i + 1 };
    if (c !== '\\') {
      out += c;
      i++;
      continue;
    }
    const e = source[i + 1];
    if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(source.slice(i + 2, i + 6))) {
      out += String.fromCharCode(parseInt(source.slice(i + 2, i + 6), 16));
      i += 6;
    } else if (e !== undefined && Object.hasOwn(ESCAPES, e)) {
      out += ESCAPES[e];
      i += 2;
    } else {
      throw new ExpressionError('syntax', 'unknown escape in string', i);
    }
  }
  throw new ExpressionError('syntax', 'string is not closed', open);
}

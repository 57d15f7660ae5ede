/**
 * The lenient JSON the service reads (KairosDB query bodies, CoAP payloads): JSON5, which NETPIE's own examples use
 * (`{data:{temp:30.4}}`), and everything else Gson's lenient reader takes, since KairosDB reads its bodies with it
 * (kairosdb reference §1; Gson's `JsonReader.setLenient`):
 *
 * - names and string values unquoted or in single quotes: `{name:sum,unit:hours}` (Gson; JSON5 only unquotes names);
 *   an unquoted value runs until one of `/ \ ; # = { } [ ] : ,` or whitespace, as in Gson;
 * - `true`, `false` and `null` in any case (Gson: `TRUE`, `Null`), numbers as JSON5 writes them (`0x1F`, `.5`, `+1`,
 *   `Infinity`, `NaN`); any other unquoted value is a string, so `01`, `5m` or `hours` are strings;
 * - `//`, `/* *\/` and `#` comments; `;` as well as `,` between members and elements; `=` or `=>` instead of `:`;
 * - an element left out of an array is null (`[1,,2]`, Gson), a trailing separator is dropped (`[1,]`, `{a:1,}`, JSON5);
 * - Gson's non-execute prefix `)]}'` and a newline, before the value.
 *
 * Strings take JSON5's escapes (`\x41`, `\0`, a backslash before a line break continues the line) and Gson's (any
 * other character after a backslash is itself), and line breaks as they are (Gson).
 */
export class LenientJsonError extends Error {}

/** A parsed value: json.ts's Json, spelt again here so that json.ts may import this file. */
type Json = null | boolean | number | string | Json[] | JsonObject;
interface JsonObject {
  [key: string]: Json;
}

const WHITESPACE = /[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;
const LINE_END = /[\n\r\u2028\u2029]/g;
const LINE_BREAK = /\r\n|[\n\r\u2028\u2029]/g;
const STOPS = new Set(['/', '\\', ';', '#', '=', '{', '}', '[', ']', ':', ',']);
const NUMBER = /^[+-]?(?:Infinity|NaN|0[xX][0-9a-fA-F]+|(?:0|[1-9]\d*)(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)$/;
const KEYWORDS = new Map<string, Json>([['true', true], ['false', false], ['null', null]]);
const ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', 0: '\0' };
const NON_EXECUTE_PREFIX = ")]}'\n";

export function parseLenientJson(text: string): Json {
  let pos = text.startsWith(NON_EXECUTE_PREFIX) ? NON_EXECUTE_PREFIX.length : 0;

  const fail = (what: string, at = pos): never => {
    const before = text.slice(0, at);
    const line = (before.match(LINE_BREAK)?.length ?? 0) + 1;
    const column = at - Math.max(...[...'\n\r\u2028\u2029'].map((c) => before.lastIndexOf(c)));
    throw new LenientJsonError(`${what} at ${line}:${column}`);
  };
  const shown = (c: string | undefined) => (c === undefined ? 'end of input' : `character ${JSON.stringify(c)}`);

  function skipBlanks(): void {
    while (pos < text.length) {
      const c = text[pos];
      if (WHITESPACE.test(c)) {
        pos++;
      } else if (c === '#' || text.startsWith('//', pos)) {
        LINE_END.lastIndex = pos;
        pos = LINE_END.exec(text)?.index ?? text.length;
      } else if (text.startsWith('/*', pos)) {
        const end = text.indexOf('*/', pos + 2);
        if (end < 0) fail('unterminated comment');
        pos = end + 2;
      } else {
        return;
      }
    }
  }

  function unquoted(): string {
    const start = pos;
    while (pos < text.length && !STOPS.has(text[pos]) && !WHITESPACE.test(text[pos])) pos++;
    return text.slice(start, pos);
  }

  function quoted(): string {
    const quote = text[pos++];
    let out = '';
    for (;;) {
      const start = pos;
      while (pos < text.length && text[pos] !== quote && text[pos] !== '\\') pos++;
      out += text.slice(start, pos);
      if (pos >= text.length) fail('unterminated string');
      if (text[pos++] === quote) return out;
      out += escaped();
    }
  }

  function escaped(): string {
    const c = text[pos++];
    if (c === undefined) fail('unterminated string');
    if (c in ESCAPES) return ESCAPES[c];
    if (c === 'x' || c === 'u') {
      const digits = text.slice(pos, pos + (c === 'x' ? 2 : 4));
      if (!/^[0-9a-fA-F]+$/.test(digits) || digits.length !== (c === 'x' ? 2 : 4)) fail(`invalid \\${c} escape`);
      pos += digits.length;
      return String.fromCharCode(parseInt(digits, 16));
    }
    // A backslash before a line break continues the string on the next line (JSON5).
    if (c === '\r') {
      if (text[pos] === '\n') pos++;
      return '';
    }
    if (c === '\n' || c === '\u2028' || c === '\u2029') return '';
    return c;
  }

  function literal(token: string): Json {
    const keyword = KEYWORDS.get(token.toLowerCase());
    if (keyword !== undefined) return keyword;
    if (!NUMBER.test(token)) return token;
    const digits = token.replace(/^[+-]/, '');
    const magnitude = /^0[xX]/.test(digits) ? parseInt(digits.slice(2), 16) : Number(digits);
    return token.startsWith('-') ? -magnitude : magnitude;
  }

  function name(): string {
    const c = text[pos];
    if (c === '"' || c === "'") return quoted();
    const token = unquoted();
    if (token === '') fail(`expected a name, got ${shown(c)}`);
    return token;
  }

  function object(): JsonObject {
    pos++;
    const out: JsonObject = {};
    for (;;) {
      skipBlanks();
      // Right after `{`, or after a trailing separator (JSON5).
      if (text[pos] === '}') {
        pos++;
        return out;
      }
      const key = name();
      skipBlanks();
      if (text[pos] === ':') pos++;
      else if (text[pos] === '=') pos += text[pos + 1] === '>' ? 2 : 1;
      else fail(`expected ':' after the name "${key}", got ${shown(text[pos])}`);
      // Defined, not assigned: a member named `__proto__` stays data (as in json.ts's setMember).
      Object.defineProperty(out, key, { value: value(), enumerable: true, writable: true, configurable: true });
      skipBlanks();
      const separator = text[pos++];
      if (separator === '}') return out;
      if (separator !== ',' && separator !== ';') fail(`expected ',' or '}', got ${shown(separator)}`, pos - 1);
    }
  }

  function array(): Json[] {
    pos++;
    const out: Json[] = [];
    for (;;) {
      skipBlanks();
      if (text[pos] === ']') {
        pos++;
        return out;
      }
      if (text[pos] === ',' || text[pos] === ';') {
        out.push(null);
        pos++;
        continue;
      }
      out.push(value());
      skipBlanks();
      const separator = text[pos++];
      if (separator === ']') return out;
      if (separator !== ',' && separator !== ';') fail(`expected ',' or ']', got ${shown(separator)}`, pos - 1);
    }
  }

  function value(): Json {
    skipBlanks();
    const c = text[pos];
    if (c === '{') return object();
    if (c === '[') return array();
    if (c === '"' || c === "'") return quoted();
    const token = unquoted();
    if (token === '') fail(`expected a value, got ${shown(c)}`);
    return literal(token);
  }

  const result = value();
  skipBlanks();
  if (pos < text.length) fail(`unexpected ${shown(text[pos])} after the value`);
  return result;
}

import JSON5 from 'json5';
import { AppError } from './errors';

/** A JSON value as parsed by JSON.parse: the shape of shadow data and message bodies. */
export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export const isJsonObject = (v: unknown): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Sets a member without ever touching a prototype, so a key named `__proto__` stays plain data. That key is the only
 * one an assignment would not make an own data member of a plain object (Object.prototype's one accessor); every other
 * key is assigned, which is several times cheaper than defining it (shadow merges set every member of every write).
 */
export function setMember(target: JsonObject, key: string, value: Json): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * Parses a body already read, for every transport: UTF-8, not empty, then strict or lenient JSON (see readJson).
 * `what` names it in errors: an HTTP or CoAP "body", an MQTT "payload".
 */
/** Stateless between calls (no `stream` option), so one serves every body. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

export function parseJson(raw: Buffer, syntax: 'strict' | 'lenient', what = 'body'): unknown {
  let text: string;
  try {
    text = UTF8.decode(raw);
  } catch {
    throw new AppError('INVALID_JSON', `${what} is not valid UTF-8`);
  }
  if (text.trim() === '') throw new AppError('INVALID_JSON', `${what} is empty; expected a JSON object`);
  try {
    return syntax === 'strict' ? JSON.parse(text) : JSON5.parse(blankHashComments(text));
  } catch (err) {
    throw new AppError('INVALID_JSON', `${what} is not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * Gson's lenient reader (KairosDB's query parser, kairosdb reference §1) also takes `#` line comments, which JSON5
 * does not: each one becomes spaces up to its line's end, outside strings and other comments, so that positions in
 * JSON5's error messages stay right.
 */
export function blankHashComments(text: string): string {
  if (!text.includes('#')) return text;
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (text.startsWith('//', i) || c === '#') {
      const end = text.indexOf('\n', i);
      const stop = end < 0 ? text.length : end;
      out += c === '#' ? ' '.repeat(stop - i) : text.slice(i, stop);
      i = stop;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      out += text.slice(i, stop);
      i = stop;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

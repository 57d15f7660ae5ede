import { AppError } from './errors';
import { parseLenientJson } from './lenient-json';

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

/** Stateless between calls (no `stream` option), so one serves every body. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Parses a body already read, for every transport: UTF-8, not empty, then strict JSON or lenient (JSON5 and Gson's
 * lenient syntax, lenient-json.ts). `what` names it in errors: an HTTP or CoAP "body", an MQTT "payload".
 */
export function parseJson(raw: Buffer, syntax: 'strict' | 'lenient', what = 'body'): unknown {
  let text: string;
  try {
    text = UTF8.decode(raw);
  } catch {
    throw new AppError('INVALID_JSON', `${what} is not valid UTF-8`);
  }
  if (text.trim() === '') throw new AppError('INVALID_JSON', `${what} is empty; expected a JSON object`);
  try {
    return syntax === 'strict' ? JSON.parse(text) : parseLenientJson(text);
  } catch (err) {
    throw new AppError('INVALID_JSON', `${what} is not valid JSON: ${(err as Error).message}`);
  }
}

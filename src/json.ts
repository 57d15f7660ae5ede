import JSON5 from 'json5';
import { AppError } from './errors';

/** A JSON value as parsed by JSON.parse: the shape of shadow data and message bodies. */
export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export const isJsonObject = (v: unknown): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Sets a member without ever touching a prototype, so a key named `__proto__` stays plain data. */
export function setMember(target: JsonObject, key: string, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Parses a body already read, for every transport: UTF-8, not empty, then strict or lenient JSON (see readJson).
 * `what` names it in errors: an HTTP or CoAP "body", an MQTT "payload".
 */
export function parseJson(raw: Buffer, syntax: 'strict' | 'lenient', what = 'body'): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    throw new AppError('INVALID_JSON', `${what} is not valid UTF-8`);
  }
  if (text.trim() === '') throw new AppError('INVALID_JSON', `${what} is empty; expected a JSON object`);
  try {
    return syntax === 'strict' ? JSON.parse(text) : JSON5.parse(text);
  } catch (err) {
    throw new AppError('INVALID_JSON', `${what} is not valid JSON: ${(err as Error).message}`);
  }
}

// @ts-check
import { ApiError } from './api.js';

/**
 * @typedef {object} StreamEvent
 * @property {string} event the `event:` field; "message" when there was none
 * @property {string} data the `data:` lines, joined by newlines
 */

/**
 * An incremental parser of `text/event-stream` (WHATWG HTML §9.2.6 "Interpreting an event stream"): feed it text as
 * it arrives, in pieces of any size; it calls `onEvent` for each complete event. `id` and `retry` are not needed
 * here and are skipped, like comment lines.
 * @param {(event: StreamEvent) => void} onEvent
 * @returns {(chunk: string) => void}
 */
export function createEventParser(onEvent) {
  let pending = '';
  let event = '';
  /** @type {string[]} */
  let data = [];
  return (chunk) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const raw of lines) {
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (line === '') {
        if (data.length > 0) onEvent({ event: event || 'message', data: data.join('\n') });
        event = '';
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
  };
}

/** @typedef {'connecting' | 'live' | 'reconnecting'} StreamState */

const RECONNECT_MS = 3000;

/**
 * Reads an event stream with fetch, since EventSource cannot send an Authorization header, and reconnects after a
 * drop until `signal` aborts. A refused token (401) ends it with an ApiError.
 * @param {string} url
 * @param {{token: string | null, signal: AbortSignal, onEvent: (event: StreamEvent) => void, onState: (state: StreamState) => void}} options
 */
export async function readEventStream(url, { token, signal, onEvent, onState }) {
  let first = true;
  while (!signal.aborted) {
    onState(first ? 'connecting' : 'reconnecting');
    first = false;
    try {
      const res = await fetch(url, {
        headers: { accept: 'text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        signal,
        cache: 'no-store',
      });
      if (!res.ok || !res.body) {
        const body = await res.json().catch(() => ({}));
        throw new ApiError(res.status, body.code ?? `HTTP_${res.status}`, body.message ?? res.statusText);
      }
      onState('live');
      const parse = createEventParser(onEvent);
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        parse(value);
      }
    } catch (err) {
      if (signal.aborted) return;
      // A wrong token or a bad group never gets better by retrying.
      if (err instanceof ApiError && err.status >= 400 && err.status < 500) throw err;
    }
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, RECONNECT_MS);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve(undefined);
      }, { once: true });
    });
  }
}

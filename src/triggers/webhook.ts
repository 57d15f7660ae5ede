import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { request as httpRequest, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, LookupFunction } from 'node:net';
import { AddressGuard, normalizeAddress } from './address-guard';

export interface WebhookRequest {
  method: string;
  uri: string;
  headers: Readonly<Record<string, string>>;
  body?: string;
}

/** How a delivery ended, for the delivery log. */
export interface WebhookOutcome {
  /** `delivered`: a 2xx; `refused`: the address guard said no (never retried); `failed`: every attempt failed. */
  outcome: 'delivered' | 'failed' | 'refused';
  attempts: number;
  /** The HTTP status of the last attempt that got one. */
  status?: number;
  error?: string;
  durationMs: number;
}

export interface WebhookSenderOptions {
  guard: AddressGuard;
  /** Deadline of one attempt, connect to last byte, in ms (WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  /** Attempts per delivery (WEBHOOK_MAX_ATTEMPTS). */
  maxAttempts: number;
  /** Wait before the second attempt, in ms; it doubles for each further one. */
  backoffMs?: number;
  userAgent: string;
  /** DNS resolution; tests replace it to point a public-looking name at a private address. */
  lookup?: typeof dnsLookup;
}

/**
 * What an operator sets for webhooks (WEBHOOK_*; docs/automation.md "Triggers and event hooks"): the hosts, addresses
 * and CIDR ranges they may reach besides public addresses, the deadline of one attempt, attempts per delivery.
 */
export interface WebhookSettings {
  readonly allowHosts: readonly string[];
  readonly timeoutMs: number;
  readonly maxAttempts: number;
}

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = Object.freeze({ allowHosts: [], timeoutMs: 5000, maxAttempts: 3 });

export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookOutcome>;
  /** Stops waiting between attempts and aborts those under way; later sends fail at once. */
  close(): void;
}

/** Bytes of a webhook's reply that are read; the rest is cut off (only the status matters). */
const MAX_REPLY_BYTES = 64 * 1024;

class AddressRefusedError extends Error {}

type Attempt = { status: number } | { error: string; refused?: boolean };

/** Retried: no answer, a timeout, 408, 429 and 5xx. Not: 2xx (done), redirects (never followed), other 4xx. */
const retryable = (a: Attempt) => ('error' in a ? !a.refused : a.status === 408 || a.status === 429 || a.status >= 500);

/**
 * Sends webhooks (netpie reference §8.3) over node:http(s): at most `maxAttempts` attempts with doubling waits,
 * each within `timeoutMs`, redirects not followed. Every address is checked by the guard, IP literals before the
 * request and names as they resolve (inside the connection's own lookup, so a name cannot resolve to a public
 * address for the check and to a private one for the connection).
 */
export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const { guard, timeoutMs, maxAttempts, backoffMs = 500, userAgent } = options;
  const resolve = options.lookup ?? dnsLookup;
  const closing = new AbortController();

  const guardedLookup = (hostname: string): LookupFunction => (host, lookupOptions, callback) => {
    resolve(host, { ...lookupOptions, all: true }, (err, found) => {
      if (err) return callback(err, '', 0);
      const addresses = found as unknown as LookupAddress[];
      const refusal = addresses.map((a) => guard.refusal(hostname, a.address)).find((r) => r !== undefined);
      if (refusal !== undefined) return callback(new AddressRefusedError(`${hostname}: ${refusal}`), '', 0);
      if (lookupOptions.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };

  function attempt(req: WebhookRequest): Promise<Attempt> {
    let url: URL;
    try {
      url = new URL(req.uri);
    } catch {
      return Promise.resolve({ error: 'the uri is not a valid URL' });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return Promise.resolve({ error: 'the uri must be http or https' });
    const hostRefusal = guard.hostRefusal(url.hostname);
    if (hostRefusal !== undefined) return Promise.resolve({ error: `${url.hostname}: ${hostRefusal}`, refused: true });
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const signal = AbortSignal.any([closing.signal, AbortSignal.timeout(timeoutMs)]);
    return new Promise((done) => {
      const finish = (a: Attempt) => {
        done(a);
        outgoing.destroy();
      };
      const outgoing = send(url, {
        method: req.method,
        headers: { 'user-agent': userAgent, ...req.headers },
        agent: false,
        signal,
        ...(isIP(normalizeAddress(url.hostname)) === 0 ? { lookup: guardedLookup(url.hostname) } : {}),
      });
      outgoing.on('response', (res: IncomingMessage) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_REPLY_BYTES) finish({ status: res.statusCode ?? 0 });
        });
        res.on('end', () => finish({ status: res.statusCode ?? 0 }));
        res.on('error', () => finish({ status: res.statusCode ?? 0 }));
      });
      outgoing.on('error', (err: Error) => {
        if (err instanceof AddressRefusedError) return finish({ error: err.message, refused: true });
        if (signal.aborted && !closing.signal.aborted) return finish({ error: `no answer within ${timeoutMs} ms` });
        if (closing.signal.aborted) return finish({ error: 'the service is stopping' });
        finish({ error: err.message || (err as NodeJS.ErrnoException).code || 'connection failed' });
      });
      outgoing.end(req.body);
    });
  }

  const wait = (ms: number) =>
    new Promise<void>((resolveWait) => {
      const stop = () => {
        clearTimeout(timer);
        closing.signal.removeEventListener('abort', stop);
        resolveWait();
      };
      const timer = setTimeout(stop, ms);
      closing.signal.addEventListener('abort', stop);
    });

  return {
    async send(req) {
      const started = Date.now();
      let last: Attempt = { error: 'not sent' };
      let attempts = 0;
      while (attempts < maxAttempts && !closing.signal.aborted) {
        if (attempts > 0) await wait(backoffMs * 2 ** (attempts - 1));
        if (closing.signal.aborted) break;
        attempts++;
        last = await attempt(req);
        if (!retryable(last)) break;
      }
      const durationMs = Date.now() - started;
      if ('status' in last) {
        const ok = last.status >= 200 && last.status < 300;
        return { outcome: ok ? 'delivered' : 'failed', attempts, status: last.status, durationMs, ...(ok ? {} : { error: `HTTP ${last.status}` }) };
      }
      return { outcome: last.refused ? 'refused' : 'failed', attempts, error: last.error, durationMs };
    },
    close() {
      closing.abort();
    },
  };
}

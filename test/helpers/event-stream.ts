/** A Server-Sent Events client for tests: fetch, read the stream, parse events, wait for the ones a test expects. */

export interface SseEvent {
  event: string;
  data: string;
  /** `data` parsed as JSON. */
  json: any;
}

export interface SseClient {
  status: number;
  headers: Headers;
  /** Every event received so far, in order. */
  events: SseEvent[];
  /** Resolves with the first event (already received or still to come) matching `pred`; rejects after `ms`. */
  next(pred: (e: SseEvent) => boolean, ms?: number): Promise<SseEvent>;
  /** Resolves when the server ends the stream; rejects after `ms`. */
  ended(ms?: number): Promise<void>;
  /** Hangs up, as a browser leaving the page does. */
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const events: SseEvent[] = [];
  const waiters = new Set<() => void>();
  let done = false;
  const wake = () => {
    for (const w of [...waiters]) w();
  };

  if (res.body) {
    void (async () => {
      const decoder = new TextDecoder();
      let pending = '';
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          pending += decoder.decode(chunk, { stream: true });
          let end: number;
          while ((end = pending.indexOf('\n\n')) >= 0) {
            const block = pending.slice(0, end);
            pending = pending.slice(end + 2);
            let event = 'message';
            const data: string[] = [];
            for (const line of block.split('\n')) {
              if (line.startsWith('event: ')) event = line.slice(7);
              else if (line.startsWith('data: ')) data.push(line.slice(6));
            }
            if (data.length === 0) continue;
            const text = data.join('\n');
            let json: unknown;
            try {
              json = JSON.parse(text);
            } catch {
              json = undefined;
            }
            events.push({ event, data: text, json });
            wake();
          }
        }
      } catch {
        // aborted by close(), or the connection dropped: either way the stream is over
      }
      done = true;
      wake();
    })();
  }

  const waitFor = <T>(check: () => T | undefined, ms: number, what: string) =>
    new Promise<T>((resolve, reject) => {
      const attempt = () => {
        const found = check();
        if (found === undefined) return false;
        clearTimeout(timer);
        waiters.delete(onWake);
        resolve(found);
        return true;
      };
      const onWake = () => void attempt();
      const timer = setTimeout(() => {
        waiters.delete(onWake);
        reject(new Error(`${what} within ${ms} ms; events so far: ${JSON.stringify(events.map((e) => e.event))}`));
      }, ms);
      if (!attempt()) waiters.add(onWake);
    });

  return {
    status: res.status,
    headers: res.headers,
    events,
    next: (pred, ms = 3000) => waitFor(() => events.find(pred), ms, 'no matching event'),
    ended: (ms = 3000) => waitFor(() => (done ? true : undefined), ms, 'the stream did not end').then(() => undefined),
    close: () => abort.abort(),
  };
}

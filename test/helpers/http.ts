/** An HTTP client for tests that never throws on a status: it returns status, headers and the parsed body. */
export interface HttpResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string or Buffer as it is. */
  body?: unknown;
  contentType?: string;
}

export type HttpClient = <T = any>(method: string, path: string, opts?: RequestOptions) => Promise<HttpResponse<T>>;

export function httpClient(baseUrl: string, defaultHeaders: Record<string, string> = {}): HttpClient {
  return async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...defaultHeaders, ...opts.headers };
    let body: string | Buffer | undefined;
    if (typeof opts.body === 'string' || Buffer.isBuffer(opts.body)) {
      body = opts.body;
      headers['content-type'] ??= opts.contentType ?? 'text/plain';
    } else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= opts.contentType ?? 'application/json';
    }
    const res = await fetch(baseUrl + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed as never, text };
  };
}

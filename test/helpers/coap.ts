import { expect } from 'chai';
import { createSocket } from 'node:dgram';
import { Agent, request, type IncomingMessage, type OptionValue } from 'coap';
import { TestDevice } from './devices';

export interface CoapResponse<T = any> {
  /** `2.05`, `4.01`, … */
  code: string;
  /** The payload parsed as JSON, or the text when it is not JSON. */
  body: T;
  text: string;
  headers: IncomingMessage['headers'];
}

export interface CoapRequestOptions {
  /** Query arguments, each sent as one Uri-Query option, e.g. `['auth=id:token']`. */
  query?: string[];
  /** An object is sent as JSON; a string or Buffer as it is. */
  payload?: unknown;
  contentFormat?: string | number;
  /** Extra options, e.g. `{ Block1: Buffer.of(6) }` for 1024-byte blocks. */
  options?: Record<string, OptionValue>;
  /** Non-confirmable (NON) instead of confirmable (CON). */
  nonConfirmable?: boolean;
}

export type CoapClient = <T = any>(method: string, path: string, opts?: CoapRequestOptions) => Promise<CoapResponse<T>>;

/** Bodies larger than this go block-wise (RFC 7959 Block1): node-coap sends at most 1280 bytes in one datagram. */
const SINGLE_DATAGRAM_PAYLOAD = 1024;

/**
 * A CoAP client for tests over UDP with the node-coap package: never throws on a response code, returns the code and
 * the parsed body. Each request has its own socket (agent: false), so nothing outlives a test.
 */
export function coapClient(url: string, from: { localAddress?: string } = {}): CoapClient {
  const { hostname, port } = new URL(url);
  return (method, path, opts = {}) =>
    new Promise((resolve, reject) => {
      // From another loopback address (127.0.0.2, ...): an agent of its own on a socket bound there, closed after.
      const agent = from.localAddress === undefined ? undefined : new Agent({ type: 'udp4', socket: createSocket('udp4').bind(0, from.localAddress) });
      const done = () => agent?.close();
      const payload =
        opts.payload === undefined
          ? undefined
          : typeof opts.payload === 'string' || Buffer.isBuffer(opts.payload)
            ? Buffer.from(opts.payload)
            : Buffer.from(JSON.stringify(opts.payload));
      const req = request({
        hostname,
        port: Number(port),
        method: method as never,
        pathname: path,
        query: (opts.query ?? []).join('&'),
        confirmable: !opts.nonConfirmable,
        agent: agent ?? false,
        ...(opts.contentFormat !== undefined ? { contentFormat: opts.contentFormat } : {}),
      });
      if (payload && payload.length > SINGLE_DATAGRAM_PAYLOAD) req.setOption('Block1', Buffer.of(6));
      for (const [name, value] of Object.entries(opts.options ?? {})) req.setOption(name, value);
      const timer = setTimeout(() => reject(new Error(`no CoAP response to ${method} ${path} in time`)), 10_000);
      req.on('response', (res: IncomingMessage) => {
        clearTimeout(timer);
        const text = res.payload.toString('utf8');
        let body: unknown = text;
        try {
          body = text === '' ? undefined : JSON.parse(text);
        } catch {
          // not JSON: keep the text
        }
        done();
        resolve({ code: res.code, body: body as never, text, headers: res.headers });
      });
      req.on('error', (err: Error) => {
        clearTimeout(timer);
        done();
        reject(err);
      });
      req.end(payload);
    });
}

/** The `auth` query argument of a device (netpie reference §4). */
export const authOf = (device: Pick<TestDevice, 'deviceid' | 'token'>) => `auth=${device.deviceid}:${device.token}`;

/** A client that adds the device's `?auth=` to every request, before any other query argument given. */
export function coapAs(url: string, device: TestDevice, from: { localAddress?: string } = {}): CoapClient {
  const client = coapClient(url, from);
  return (method, path, opts = {}) => client(method, path, { ...opts, query: [authOf(device), ...(opts.query ?? [])] });
}

/** Sends one raw datagram to the service and collects whatever comes back within `ms`. */
export function sendDatagram(url: string, datagram: Buffer, ms = 300): Promise<Buffer[]> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    const replies: Buffer[] = [];
    socket.on('message', (msg) => replies.push(msg));
    socket.on('error', reject);
    socket.send(datagram, Number(port), hostname, (err) => {
      if (err) return reject(err);
      setTimeout(() => socket.close(() => resolve(replies)), ms);
    });
  });
}

/**
 * The error body over CoAP: the code (`4.01`), Content-Format application/json and REST's body
 * `{status, code, message, requestId}`, where `status` is the HTTP status of the same error.
 */
export function expectCoapError(res: CoapResponse, coapCode: string, status: number, code: string): void {
  expect(res.code, res.text).to.equal(coapCode);
  expect(res.headers['Content-Format']).to.equal('application/json');
  expect(res.body).to.be.an('object');
  expect(res.body).to.include({ status, code });
  expect(res.body.message).to.be.a('string').that.is.not.empty;
  expect(res.body.requestId).to.be.a('string').that.is.not.empty;
}

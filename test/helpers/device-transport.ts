import { CoapResponse, coapAs, expectCoapError } from './coap';
import { TestDevice } from './devices';
import { HttpResponse } from './http';
import { asDevice, expectError } from './rest-device';
import { Stack } from './stack';

/** `merge` is PUT, `overwrite` is POST (netpie reference §4); a `merged` member in the body beats the method. */
export type WriteMode = 'merge' | 'overwrite';

/** One answer of the Device API, the same whichever transport carried it. */
export interface DeviceReply<T = any> {
  ok: boolean;
  /** The HTTP status; over CoAP the HTTP status of the code: 4.13 is 413, 2.04 and 2.05 are both 200. */
  status: number;
  /** The error code of the body (`ALIAS_NOT_FOUND`) when not ok. */
  code?: string;
  /**
   * The parsed body. Over REST a success body repeats the HTTP status as `status: 200`, which CoAP does not; that
   * member is left out here, and checked where it belongs (test/integration/device-api/rest.test.ts).
   */
  body: T;
  text: string;
  /** The answer as the transport gave it, for expectDeviceError. */
  raw: { transport: 'REST'; res: HttpResponse } | { transport: 'CoAP'; res: CoapResponse };
}

/** The device calls that REST (/v2/device/...) and CoAP (/...?auth=) both offer, with the same use cases behind. */
export interface DeviceClient {
  readShadow(alias?: string): Promise<DeviceReply>;
  /** `?at=`: the shadow as it was then (docs/device-api.md "Shadow history"). */
  readShadowAt(at: number | string, alias?: string): Promise<DeviceReply>;
  /** `shadow/revisions` with these query parameters (`from`, `to`, `limit`, `cursor`). */
  listRevisions(query: Record<string, string | number>, alias?: string): Promise<DeviceReply>;
  /** An object is sent as JSON. */
  writeShadow(body: unknown, mode: WriteMode, alias?: string): Promise<DeviceReply>;
  writeBatch(body: unknown, mode: WriteMode, alias?: string): Promise<DeviceReply>;
  /** Publishes to `@msg/{topic}`; an empty topic sends none. */
  publish(topic: string, payload: string | Buffer): Promise<DeviceReply>;
}

export interface DeviceTransport {
  name: 'REST' | 'CoAP';
  /** A client acting as `device` on `stack`. */
  clientOf(stack: Stack, device: TestDevice): DeviceClient;
}

const methodOf = (mode: WriteMode) => (mode === 'merge' ? 'PUT' : 'POST');

export const overRest: DeviceTransport = {
  name: 'REST',
  clientOf(stack, device) {
    const http = asDevice(stack, device);
    const aliasQuery = (alias?: string) => (alias === undefined ? '' : `?alias=${encodeURIComponent(alias)}`);
    const reply = (res: HttpResponse): DeviceReply => ({
      ok: res.status >= 200 && res.status < 300,
      status: res.status,
      code: res.status >= 400 ? res.body?.code : undefined,
      body: withoutStatusEcho(res),
      text: res.text,
      raw: { transport: 'REST', res },
    });
    return {
      readShadow: async (alias) => reply(await http('GET', `/v2/device/shadow/data${aliasQuery(alias)}`)),
      readShadowAt: async (at, alias) => reply(await http('GET', `/v2/device/shadow/data?${queryOf({ at }, alias)}`)),
      listRevisions: async (query, alias) => reply(await http('GET', `/v2/device/shadow/revisions?${queryOf(query, alias)}`)),
      writeShadow: async (body, mode, alias) =>
        reply(await http(methodOf(mode), `/v2/device/shadow/data${aliasQuery(alias)}`, { body })),
      writeBatch: async (body, mode, alias) =>
        reply(await http(methodOf(mode), `/v2/device/shadow/batch${aliasQuery(alias)}`, { body })),
      publish: async (topic, payload) => {
        // `#`, `?` and `%` would end or change the path; everything else goes as written, wildcards included.
        const path = topic === '' ? '/v2/device/message' : `/v2/device/message/${topic.replace(/[#?%]/g, encodeURIComponent)}`;
        const contentType = Buffer.isBuffer(payload) ? 'application/octet-stream' : 'text/plain';
        return reply(await http('PUT', path, { body: payload, contentType }));
      },
    };
  },
};

/** A query string of `params` and, when given, `alias`. */
const queryOf = (params: Record<string, string | number>, alias?: string) =>
  new URLSearchParams(Object.entries({ ...params, ...(alias === undefined ? {} : { alias }) }).map(([k, v]): [string, string] => [k, String(v)])).toString();

function withoutStatusEcho(res: HttpResponse): unknown {
  const body = res.body;
  if (res.status >= 300 || typeof body !== 'object' || body === null || body.status !== res.status) return body;
  const rest = { ...body };
  delete rest.status;
  return rest;
}

export const overCoap: DeviceTransport = {
  name: 'CoAP',
  clientOf(stack, device) {
    const coap = coapAs(stack.coapUrl, device);
    const aliasQuery = (alias?: string) => (alias === undefined ? [] : [`alias=${alias}`]);
    const reply = (res: CoapResponse): DeviceReply => {
      const ok = res.code.startsWith('2.');
      return {
        ok,
        status: ok ? 200 : statusOfCoapCode(res.code),
        code: ok ? undefined : res.body?.code,
        body: res.body,
        text: res.text,
        raw: { transport: 'CoAP', res },
      };
    };
    return {
      readShadow: async (alias) => reply(await coap('GET', '/shadow/data', { query: aliasQuery(alias) })),
      readShadowAt: async (at, alias) => reply(await coap('GET', '/shadow/data', { query: [...aliasQuery(alias), `at=${at}`] })),
      listRevisions: async (query, alias) => {
        const pairs = Object.entries(query).map(([name, value]) => `${name}=${value}`);
        return reply(await coap('GET', '/shadow/revisions', { query: [...aliasQuery(alias), ...pairs] }));
      },
      writeShadow: async (body, mode, alias) =>
        reply(await coap(methodOf(mode), '/shadow/data', { query: aliasQuery(alias), payload: body })),
      writeBatch: async (body, mode, alias) =>
        reply(await coap(methodOf(mode), '/shadow/batch', { query: aliasQuery(alias), payload: body })),
      // Each level is one Uri-Path option, sent as it is (RFC 7252 §6.5).
      publish: async (topic, payload) => reply(await coap('PUT', topic === '' ? '/message' : `/message/${topic}`, { payload })),
    };
  },
};

/** `4.13` -> 413: a CoAP error code is an HTTP status written as class.detail (RFC 7252 §12.1.2). */
const statusOfCoapCode = (code: string) => Number(code.replace('.', ''));

/** `413` -> `4.13`. */
const coapCodeOfStatus = (status: number) => `${Math.floor(status / 100)}.${String(status % 100).padStart(2, '0')}`;

/**
 * The whole error answer as its transport gives it: the status (or its CoAP code), a JSON content type and the body
 * `{status, code, message, requestId}` (expectError over REST, expectCoapError over CoAP).
 */
export function expectDeviceError(reply: DeviceReply, status: number, code: string): void {
  if (reply.raw.transport === 'REST') expectError(reply.raw.res, status, code);
  else expectCoapError(reply.raw.res, coapCodeOfStatus(status), status, code);
}

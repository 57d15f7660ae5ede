import { expect } from 'chai';
import type { IPublishPacket } from 'mqtt-packet';
import { aDevice, aGroup, TestDevice } from '../../helpers/devices';
import { connectDevice, endAll, nextMessage } from '../../helpers/mqtt';
import { WireSession } from '../../helpers/mqtt-wire';
import { classicConnect, classicSession, qos0Publish, rawHttp, RawHttpRequest, singleSubscribe, within } from '../../helpers/netpie-clients';
import { asDevice } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

/**
 * PerfecXX/MicroPython-NETPIE (`netpie.py`, PyPI micropython-netpie 1.0.0), the NETPIE library for MicroPython boards,
 * replayed byte for byte.
 * - MQTT through umqtt.simple (imported as `simple`, micropython/micropython-lib micropython/umqtt.simple/umqtt/simple.py):
 *   CONNECT 3.1.1, clean session, keepalive 0, ClientID = Client ID, user = token, password = secret (connect()
 *   refuses to run without a secret); QoS 0 publishes; one SUBSCRIBE per call, whose SUBACK 0x80 raises. connect() maps
 *   CONNACK return code 5 to "Not authorized".
 * - publishShadow(dict) sends json.dumps({"data": dict}) on `@shadow/data/update` (MicroPython's json puts a space
 *   after `:` and `,`); publishMessage(topic, str) adds `@msg/` when missing.
 * - REST through urequests against `https://api.netpie.io/v2/device`: GET /status and /shadow/data, POST (write) and
 *   PUT (merge) /shadow/data with `json=`, PUT /message/{topic} and /private/{topic} as text/plain. Replies are read with
 *   status_code and json.loads(text). Two urequests are in the field: micropython-lib's python-ecosys/urequests (HTTP/1.0,
 *   Host first, a second `Content-Type: application/json` after the caller's, and a ValueError on a chunked answer) and
 *   its successor python-ecosys/requests (HTTP/1.1, the caller's headers first, then Host, Content-Length, Connection).
 */

const MICROPYTHON_DUMPS = (value: unknown) => JSON.stringify(value).replace(/":/g, '": ').replace(/,"/g, ', "');

/** netpie.py set_profile() + connect(): umqtt.simple with the defaults netpie.py leaves. */
const netpieConnect = (device: TestDevice) =>
  classicConnect({ clientId: device.deviceid, username: device.token, password: device.secret, keepalive: 0, clean: true });

async function connectBoard(stack: Stack, device: TestDevice): Promise<WireSession> {
  const session = classicSession(stack.server.mqttPort, netpieConnect(device));
  const connack = await within(session.next('connack'), 3000, 'CONNACK');
  expect(connack.returnCode).to.equal(0);
  return session;
}

/** umqtt.simple subscribe(): asserts the SUBACK's packet id and raises on 0x80. */
async function subscribe(session: WireSession, packetId: number, filter: string): Promise<number> {
  session.sendRaw(singleSubscribe(packetId, filter));
  const suback = await within(session.next('suback'), 3000, `SUBACK for ${filter}`);
  expect(suback.messageId).to.equal(packetId);
  return suback.granted[0] as number;
}

const nextPublish = (session: WireSession, topic: string) =>
  within(session.next('publish', (p: IPublishPacket) => p.topic === topic), 3000, `a PUBLISH on ${topic}`);

/** micropython-lib python-ecosys/urequests (HTTP/1.0): Host, the caller's headers, `json=`'s Content-Type, length, close. */
function oldUrequests(stack: Stack, method: string, path: string, headers: [string, string][], opts: { json?: unknown; data?: string } = {}): RawHttpRequest {
  const out: [string, string][] = [['Host', new URL(stack.baseUrl).host], ...headers];
  let body = opts.data;
  if (opts.json !== undefined) {
    body = MICROPYTHON_DUMPS(opts.json);
    out.push(['Content-Type', 'application/json']);
  }
  if (body) out.push(['Content-Length', String(body.length)]);
  out.push(['Connection', 'close']);
  return { method, target: path, version: 'HTTP/1.0', headers: out, body };
}

/** micropython-lib python-ecosys/requests (HTTP/1.1): the caller's headers, then Host, Content-Length, Connection. */
function newRequests(stack: Stack, method: string, path: string, headers: [string, string][], opts: { json?: unknown; data?: string } = {}): RawHttpRequest {
  const out: [string, string][] = [...headers, ['Host', new URL(stack.baseUrl).host]];
  const body = opts.json !== undefined ? MICROPYTHON_DUMPS(opts.json) : opts.data;
  if (body) out.push(['Content-Length', String(body.length)]);
  out.push(['Connection', 'close']);
  return { method, target: path, version: 'HTTP/1.1', headers: out, body };
}

const authOf = (device: TestDevice): [string, string] => ['Authorization', `Device ${device.deviceid}:${device.token}`];

describe('clients: MicroPython-NETPIE (PerfecXX/MicroPython-NETPIE netpie.py)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  describe('MQTT (umqtt.simple)', () => {
    // netpie.py connect() -> umqtt.simple connect(clean_session=True): keepalive 0, user and password flags.
    it('MicroPython netpie: connect() sends umqtt.simple\'s CONNECT with the secret as password and gets CONNACK 0', async () => {
      const device = await aDevice(stack);
      const board = await connectBoard(stack, device);
      try {
        const status = await asDevice(stack, device)('GET', '/v2/device/status');
        expect(status.body.status).to.equal(1);
      } finally {
        board.destroy();
      }
    });

    // netpie.py connect(): MQTTException errno 5 -> "[MQTT Error 5] Not authorized".
    it('MicroPython netpie: a wrong token gets CONNACK return code 5, which connect() reports as not authorized', async () => {
      const device = await aDevice(stack);
      const board = classicSession(
        stack.server.mqttPort,
        classicConnect({ clientId: device.deviceid, username: 'x'.repeat(32), password: device.secret, keepalive: 0, clean: true }),
      );
      try {
        const connack = await within(board.next('connack'), 3000, 'CONNACK');
        expect(connack.returnCode).to.equal(5);
      } finally {
        board.destroy();
      }
    });

    // netpie.py publishShadow(): {"data": dict} as json.dumps on '@shadow/data/update'; the board's callback gets
    // (topic, msg) bytes and json.loads the message.
    it('MicroPython netpie: publishShadow publishes on @shadow/data/update and reads data.temperature from @shadow/data/updated', async () => {
      const device = await aDevice(stack);
      const board = await connectBoard(stack, device);
      try {
        expect(await subscribe(board, 1, '@shadow/data/updated')).to.equal(0);
        const shadow = { temperature: 42, humidity: 61, movement: { X: 10, Y: 200, Z: 359 } };

        board.sendRaw(qos0Publish('@shadow/data/update', MICROPYTHON_DUMPS({ data: shadow })));

        const updated = JSON.parse((await nextPublish(board, '@shadow/data/updated')).payload.toString());
        expect(updated.deviceid).to.equal(device.deviceid);
        expect(updated.data.temperature).to.equal(42);
        expect(updated.data.movement).to.deep.equal({ X: 10, Y: 200, Z: 359 });
        const rest = await asDevice(stack, device)('GET', '/v2/device/shadow/data');
        expect(rest.body.data).to.deep.equal(shadow);
      } finally {
        board.destroy();
      }
    });

    // example/MQTT/02-pub_sub_message.py: subscribes '@msg/data' and publishes on it from the same connection.
    it('MicroPython netpie: publishMessage on @msg/data comes back to the same board subscribed to @msg/data', async () => {
      const device = await aDevice(stack);
      const board = await connectBoard(stack, device);
      try {
        expect(await subscribe(board, 1, '@msg/data')).to.equal(0);

        board.sendRaw(qos0Publish('@msg/data', 'Your number is 42'));

        expect((await nextPublish(board, '@msg/data')).payload.toString()).to.equal('Your number is 42');
      } finally {
        board.destroy();
      }
    });

    // doc/API_Documentation.md subscribe(): '@private/#' for the reply of a shadow request.
    it('MicroPython netpie: with @private/# subscribed, @shadow/data/get is answered on @private/shadow/data/get/response', async () => {
      const device = await aDevice(stack);
      await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { led: 1 } } });
      const board = await connectBoard(stack, device);
      try {
        expect(await subscribe(board, 1, '@private/#')).to.equal(0);

        board.sendRaw(qos0Publish('@shadow/data/get', ''));

        const reply = JSON.parse((await nextPublish(board, '@private/shadow/data/get/response')).payload.toString());
        expect(reply.deviceid).to.equal(device.deviceid);
        expect(reply.data).to.deep.equal({ led: 1 });
      } finally {
        board.destroy();
      }
    });

    // A board that writes its shadow over REST (merge_device_shadow) and listens over MQTT hears of the write
    // (issue 18, item 2).
    it('MicroPython netpie: merge_device_shadow over REST is announced on @shadow/data/updated to the board\'s MQTT connection', async () => {
      const device = await aDevice(stack);
      const board = await connectBoard(stack, device);
      try {
        expect(await subscribe(board, 1, '@shadow/data/updated')).to.equal(0);

        const res = await rawHttp(stack.baseUrl, newRequests(stack, 'PUT', '/v2/device/shadow/data', [authOf(device), ['Content-Type', 'application/json']], { json: { data: { led: 0 } } }));

        expect(res.status, res.text).to.equal(200);
        const updated = JSON.parse((await nextPublish(board, '@shadow/data/updated')).payload.toString());
        expect(updated.data).to.deep.equal({ led: 0 });
      } finally {
        board.destroy();
      }
    });
  });

  describe('REST (urequests)', () => {
    // netpie.py get_device_status(): GET /v2/device/status, json.loads(response.text) when status_code is 200.
    for (const [flavour, build] of [
      ['urequests (HTTP/1.0)', oldUrequests],
      ['requests (HTTP/1.1)', newRequests],
    ] as const) {
      it(`MicroPython netpie: get_device_status with ${flavour} gets 200 and a JSON status with deviceid and status`, async () => {
        const device = await aDevice(stack);

        const res = await rawHttp(stack.baseUrl, build(stack, 'GET', '/v2/device/status', [authOf(device)]));

        expect(res.status, res.text).to.equal(200);
        expect(res.chunked, 'urequests raises ValueError on a chunked answer').to.equal(false);
        expect(res.json).to.include({ deviceid: device.deviceid, status: 0 });
      });

      // netpie.py get_device_shadow(): GET /v2/device/shadow/data.
      it(`MicroPython netpie: get_device_shadow with ${flavour} gets 200 and the shadow's data`, async () => {
        const device = await aDevice(stack);
        await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { humidity: 55 } } });

        const res = await rawHttp(stack.baseUrl, build(stack, 'GET', '/v2/device/shadow/data', [authOf(device)]));

        expect(res.status, res.text).to.equal(200);
        expect(res.chunked).to.equal(false);
        expect(res.json.data).to.deep.equal({ humidity: 55 });
      });

      // netpie.py write_device_shadow(): POST with headers {Authorization, Content-Type: application/json} and json=
      // (old urequests then writes Content-Type a second time).
      it(`MicroPython netpie: write_device_shadow (POST, json=) with ${flavour} overwrites the shadow`, async () => {
        const device = await aDevice(stack);
        await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { old: 1 } } });

        const res = await rawHttp(
          stack.baseUrl,
          build(stack, 'POST', '/v2/device/shadow/data', [authOf(device), ['Content-Type', 'application/json']], { json: { data: { temperature: 25, humidity: 60 } } }),
        );

        expect(res.status, res.text).to.equal(200);
        expect(res.chunked).to.equal(false);
        expect(res.json.data).to.deep.equal({ temperature: 25, humidity: 60 });
      });

      // netpie.py merge_device_shadow(): PUT, same headers and body.
      it(`MicroPython netpie: merge_device_shadow (PUT, json=) with ${flavour} merges into the shadow`, async () => {
        const device = await aDevice(stack);
        await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { old: 1 } } });

        const res = await rawHttp(
          stack.baseUrl,
          build(stack, 'PUT', '/v2/device/shadow/data', [authOf(device), ['Content-Type', 'application/json']], { json: { data: { temperature: 26 } } }),
        );

        expect(res.status, res.text).to.equal(200);
        expect(res.json.data).to.deep.equal({ old: 1, temperature: 26 });
      });

      // netpie.py publish_device_message(): PUT /v2/device/message/{topic}, Content-Type text/plain, data=msg; returns
      // (response.text, status_code).
      it(`MicroPython netpie: publish_device_message with ${flavour} reaches a groupmate on @msg/{topic}`, async () => {
        const [board, listener] = await aGroup(stack, 2);
        const mqtt = await connectDevice(stack.mqttUrl, listener);
        try {
          await mqtt.subscribeAsync('@msg/#');
          const arrived = nextMessage(mqtt);

          const res = await rawHttp(stack.baseUrl, build(stack, 'PUT', '/v2/device/message/room1/temp', [authOf(board), ['Content-Type', 'text/plain']], { data: '27.5' }));

          expect(res.status, res.text).to.equal(200);
          expect(await arrived).to.deep.equal({ topic: '@msg/room1/temp', payload: '27.5' });
        } finally {
          await endAll(mqtt);
        }
      });

      // netpie.py publish_private_message(): PUT /v2/device/private/{topic}, text/plain; the board reads it on
      // '@private/{topic}'.
      it(`MicroPython netpie: publish_private_message with ${flavour} reaches the board on @private/{topic}`, async () => {
        const device = await aDevice(stack);
        const board = await connectBoard(stack, device);
        try {
          expect(await subscribe(board, 1, '@private/#')).to.equal(0);

          const res = await rawHttp(stack.baseUrl, build(stack, 'PUT', '/v2/device/private/note', [authOf(device), ['Content-Type', 'text/plain']], { data: 'hello' }));

          expect(res.status, res.text).to.equal(200);
          expect((await nextPublish(board, '@private/note')).payload.toString()).to.equal('hello');
        } finally {
          board.destroy();
        }
      });
    }
  });
});

import { expect } from 'chai';
import { request } from 'node:http';
import WebSocket from 'ws';
import { aDevice, aGroup, TestDevice } from '../../helpers/devices';
import { connectDevice, endAll, nextMessage, sleep } from '../../helpers/mqtt';
import { presenceBecomes, refusalOf, restPublish } from '../../helpers/mqtt-expect';
import { connectPacket } from '../../helpers/mqtt-raw';
import { startStack, Stack } from '../../helpers/stack';

/** CONNACK return code "not authorized" [MQTT-3.2.2-3]. */
const NOT_AUTHORIZED = 5;
/** SUBACK return code "Failure" [MQTT-3.9.3-2]. */
const SUBACK_FAILURE = 0x80;

/** Opens a bare WebSocket (no MQTT yet) and resolves with it once open. */
function openWebSocket(url: string, protocols: string[] = ['mqtt']): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols);
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

/** The HTTP status a refused WebSocket handshake is answered with; fails when the handshake succeeds. */
function refusedUpgradeOf(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, ['mqtt']);
    ws.once('open', () => (ws.terminate(), reject(new Error(`${url} accepted the WebSocket`))));
    ws.once('unexpected-response', (_req, res) => (ws.terminate(), resolve(res.statusCode ?? 0)));
    ws.once('error', reject);
  });
}

/** A plain (not upgrade) GET; resolves with its status. */
function plainGet(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    })
      .on('error', reject)
      .end();
  });
}

const credentials = (device: TestDevice) => ({ clientId: device.deviceid, username: device.token, password: '' });

describe('MQTT over WebSocket on the HTTP server (/mqtt)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('accepts a device with its credentials, which then shows online', async () => {
    const device = await aDevice(stack);

    const client = await connectDevice(stack.mqttWsUrl, device);
    try {
      expect(client.connected).to.equal(true);
      expect(await presenceBecomes(stack, device, 1)).to.equal(1);
    } finally {
      await endAll(client);
    }
    expect(await presenceBecomes(stack, device, 0)).to.equal(0);
  });

  it('refuses a wrong token, an unknown ClientID and a wrong secret with CONNACK 5', async () => {
    const device = await aDevice(stack);

    const refusals = [
      await refusalOf(stack.mqttWsUrl, { ...credentials(device), username: 'wrong-token' }),
      await refusalOf(stack.mqttWsUrl, { ...credentials(device), clientId: '00000000-0000-4000-8000-000000000000' }),
      await refusalOf(stack.mqttWsUrl, { ...credentials(device), password: 'wrong-secret' }),
    ];

    expect(refusals.map((e) => e.code)).to.deep.equal([NOT_AUTHORIZED, NOT_AUTHORIZED, NOT_AUTHORIZED]);
  });

  it('answers with the `mqtt` subprotocol, and `mqttv3.1` for MQTT 3.1 clients [MQTT-6.0.0-3]', async () => {
    const v311 = await openWebSocket(stack.mqttWsUrl, ['mqtt']);
    const v31 = await openWebSocket(stack.mqttWsUrl, ['mqttv3.1']);
    try {
      expect(v311.protocol).to.equal('mqtt');
      expect(v31.protocol).to.equal('mqttv3.1');
    } finally {
      for (const ws of [v311, v31]) ws.terminate();
    }
  });

  it('serves an MQTT 3.1 client (MQIsdp)', async () => {
    const device = await aDevice(stack);

    const client = await connectDevice(stack.mqttWsUrl, device, { protocolId: 'MQIsdp', protocolVersion: 3 });

    expect(client.connected).to.equal(true);
    await endAll(client);
  });

  it('delivers a REST publish to a WebSocket subscriber of the group', async () => {
    const [publisher, listener] = await aGroup(stack, 2);
    const rx = await connectDevice(stack.mqttWsUrl, listener);
    try {
      await rx.subscribeAsync('@msg/home/lamp');
      const arrived = nextMessage(rx);

      await restPublish(stack, publisher, 'home/lamp', 'ON');

      expect(await arrived).to.deep.equal({ topic: '@msg/home/lamp', payload: 'ON' });
    } finally {
      await endAll(rx);
    }
  });

  it('delivers a WebSocket publish to a TCP subscriber of the group, and back', async () => {
    const [a, b] = await aGroup(stack, 2);
    const overWs = await connectDevice(stack.mqttWsUrl, a);
    const overTcp = await connectDevice(stack.mqttUrl, b);
    try {
      await overTcp.subscribeAsync('@msg/ws-to-tcp');
      await overWs.subscribeAsync('@msg/tcp-to-ws');
      const atTcp = nextMessage(overTcp);
      const atWs = nextMessage(overWs);

      await overWs.publishAsync('@msg/ws-to-tcp', 'from ws', { qos: 1 });
      await overTcp.publishAsync('@msg/tcp-to-ws', 'from tcp', { qos: 1 });

      expect(await atTcp).to.deep.equal({ topic: '@msg/ws-to-tcp', payload: 'from ws' });
      expect(await atWs).to.deep.equal({ topic: '@msg/tcp-to-ws', payload: 'from tcp' });
    } finally {
      await endAll(overWs, overTcp);
    }
  });

  it('keeps groups apart: a WebSocket subscriber of another group receives nothing', async () => {
    const [publisher, groupmate] = await aGroup(stack, 2);
    const stranger = await aDevice(stack, { projectid: publisher.projectid });
    const [mate, other] = [await connectDevice(stack.mqttWsUrl, groupmate), await connectDevice(stack.mqttWsUrl, stranger)];
    try {
      await mate.subscribeAsync('@msg/#');
      await other.subscribeAsync('@msg/#');
      const seenByOther: string[] = [];
      other.on('message', (topic) => seenByOther.push(topic));
      const arrived = nextMessage(mate);

      await restPublish(stack, publisher, 'secret', 'for the group');
      await arrived;
      await sleep(100);

      expect(seenByOther).to.deep.equal([]);
    } finally {
      await endAll(mate, other);
    }
  });

  it('applies the TCP ACL: a filter outside the device topics gets SUBACK 0x80', async () => {
    const device = await aDevice(stack);
    const client = await connectDevice(stack.mqttWsUrl, device);
    try {
      const granted = await client.subscribeAsync('foo/bar').then(
        (grants) => grants.map((g) => g.qos as number),
        (err: Error & { packet?: { granted?: number[] } }) => err.packet?.granted,
      );

      expect(granted).to.deep.equal([SUBACK_FAILURE]);
      expect(client.connected).to.equal(true);
    } finally {
      await endAll(client);
    }
  });

  it('reads a byte stream: a CONNECT split across two WebSocket messages is served', async () => {
    const device = await aDevice(stack);
    const ws = await openWebSocket(stack.mqttWsUrl);
    try {
      // The broker writes a byte stream too: CONNACK may come in several messages.
      const connack = new Promise<Buffer>((resolve) => {
        let received = Buffer.alloc(0);
        ws.on('message', (data: Buffer) => {
          received = Buffer.concat([received, data]);
          if (received.length >= 4) resolve(received);
        });
      });
      const bytes = connectPacket(device);

      ws.send(bytes.subarray(0, 5));
      ws.send(bytes.subarray(5));

      expect([...(await connack)]).to.deep.equal([0x20, 0x02, 0x00, 0x00]);
    } finally {
      ws.terminate();
    }
  });

  it('refuses WebSocket upgrades on other paths with 404, and leaves plain routes alone', async () => {
    const elsewhere = await refusedUpgradeOf(`ws://127.0.0.1:${stack.server.httpPort}/other`);
    const status = await stack.http('GET', '/v2/device/status');

    expect(elsewhere).to.equal(404);
    expect(status.status).to.equal(401);
  });

  it('answers a plain GET /mqtt as the HTTP app does (404), without upgrading', async () => {
    expect(await plainGet(`${stack.baseUrl}/mqtt`)).to.equal(404);
  });
});

describe('MQTT over WebSocket on MQTT_WS_PORT', () => {
  let stack: Stack;
  let portUrl: string;
  before(async () => {
    stack = await startStack({ env: { MQTT_WS_PORT: '0' } });
    portUrl = `ws://127.0.0.1:${stack.server.mqttWsPort}`;
  });
  after(() => stack.stop());

  it('is off unless MQTT_WS_PORT is set', async () => {
    const plain = await startStack();
    try {
      expect(plain.server.mqttWsPort).to.equal(undefined);
    } finally {
      await plain.stop();
    }
  });

  it('accepts a device on any path, / and /mqtt alike', async () => {
    const device = await aDevice(stack);

    for (const path of ['/', '/mqtt']) {
      const client = await connectDevice(`${portUrl}${path}`, device);

      expect(client.connected, path).to.equal(true);
      await endAll(client);
    }
  });

  it('refuses a wrong token with CONNACK 5', async () => {
    const device = await aDevice(stack);

    const refusal = await refusalOf(`${portUrl}/mqtt`, { ...credentials(device), username: 'wrong-token' });

    expect(refusal.code).to.equal(NOT_AUTHORIZED);
  });

  it('meets the other transports: a REST publish reaches it and its publish reaches TCP', async () => {
    const [a, b] = await aGroup(stack, 2);
    const overWs = await connectDevice(`${portUrl}/mqtt`, a);
    const overTcp = await connectDevice(stack.mqttUrl, b);
    try {
      await overWs.subscribeAsync('@msg/from-rest');
      await overTcp.subscribeAsync('@msg/from-ws');
      const atWs = nextMessage(overWs);
      const atTcp = nextMessage(overTcp);

      await restPublish(stack, b, 'from-rest', 'r');
      await overWs.publishAsync('@msg/from-ws', 'w', { qos: 1 });

      expect(await atWs).to.deep.equal({ topic: '@msg/from-rest', payload: 'r' });
      expect(await atTcp).to.deep.equal({ topic: '@msg/from-ws', payload: 'w' });
    } finally {
      await endAll(overWs, overTcp);
    }
  });

  it('answers a plain HTTP request with 426 Upgrade Required', async () => {
    expect(await plainGet(`http://127.0.0.1:${stack.server.mqttWsPort}/`)).to.equal(426);
  });

  it('gives the one-line port-in-use message when the port is taken', async () => {
    const failure = await startStack({ env: { MQTT_WS_PORT: String(stack.server.mqttWsPort) } }).then(
      (s) => s.stop().then(() => undefined),
      (err: Error) => err,
    );

    expect(failure?.message).to.equal(`MQTT over WebSocket (MQTT_WS_PORT) port ${stack.server.mqttWsPort} on 127.0.0.1 is already in use`);
  });
});

describe('Stopping with MQTT over WebSocket connections open', () => {
  it('closes sessions and WebSockets that never sent CONNECT at once, not after SHUTDOWN_TIMEOUT_MS', async () => {
    const stack = await startStack({ env: { MQTT_WS_PORT: '0', SHUTDOWN_TIMEOUT_MS: '15000' } });
    const device = await aDevice(stack);
    const session = await connectDevice(stack.mqttWsUrl, device);
    const silentOnPath = await openWebSocket(stack.mqttWsUrl);
    const silentOnPort = await openWebSocket(`ws://127.0.0.1:${stack.server.mqttWsPort}/`);
    const sessionClosed = new Promise<void>((resolve) => session.once('close', () => resolve()));

    const started = Date.now();
    await stack.stop();

    expect(Date.now() - started).to.be.below(3000);
    await sessionClosed;
    for (const ws of [silentOnPath, silentOnPort]) expect(ws.readyState).to.be.oneOf([WebSocket.CLOSING, WebSocket.CLOSED]);
    await endAll(session);
    expect(await openWebSocket(`ws://127.0.0.1:${stack.server.mqttWsPort}/`).catch((err: NodeJS.ErrnoException) => err.code)).to.equal(
      'ECONNREFUSED',
    );
  });
});

import { expect } from 'chai';
import { Agent, request } from 'node:https';
import { connect as connectTcp } from 'node:net';
import { aDevice, aGroup, TestDevice } from '../../helpers/devices';
import { connectDevice, endAll, nextMessage } from '../../helpers/mqtt';
import { refusalOf, restPublish } from '../../helpers/mqtt-expect';
import { connectPacket } from '../../helpers/mqtt-raw';
import { startStack, Stack } from '../../helpers/stack';
import { aSelfSignedCertificate, TestCertificate } from '../../helpers/tls';

/** CONNACK return code "not authorized" [MQTT-3.2.2-3]. */
const NOT_AUTHORIZED = 5;

/** An HTTPS request that trusts only `ca`; resolves with status and parsed body. */
function httpsGet(url: string, ca: string, headers: Record<string, string>, agent?: Agent): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    request(url, { ca, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    })
      .on('error', reject)
      .end();
  });
}

/** Writes a plain MQTT CONNECT to `port` and resolves with the bytes that came back before the server hung up. */
function plainConnectTo(port: number, device: TestDevice): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connectTcp(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('the TLS port kept a plain MQTT connection open for 3 s'));
    }, 3000);
    socket.on('data', (chunk) => (received = Buffer.concat([received, chunk])));
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
    socket.write(connectPacket(device));
  });
}

/** Whether anything still listens on `port`. */
function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connectTcp(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

describe('TLS listeners (TLS_CERT_FILE, TLS_KEY_FILE)', () => {
  let certificate: TestCertificate;
  let stack: Stack;
  let mqttsUrl: string;
  let httpsUrl: string;
  before(async () => {
    certificate = await aSelfSignedCertificate();
    stack = await startStack({ env: certificate.env });
    mqttsUrl = `mqtts://127.0.0.1:${stack.server.mqttsPort}`;
    httpsUrl = `https://127.0.0.1:${stack.server.httpsPort}`;
  });
  after(async () => {
    await stack.stop();
    certificate.remove();
  });

  describe('MQTT over TLS (MQTTS_PORT)', () => {
    it('accepts a device that trusts the certificate, and delivers a REST publish to it', async () => {
      const [publisher, listener] = await aGroup(stack, 2);
      const client = await connectDevice(mqttsUrl, listener, { ca: certificate.cert, rejectUnauthorized: true });
      try {
        await client.subscribeAsync('@msg/secure');
        const arrived = nextMessage(client);

        await restPublish(stack, publisher, 'secure', 'sealed');

        expect(await arrived).to.deep.equal({ topic: '@msg/secure', payload: 'sealed' });
      } finally {
        await endAll(client);
      }
    });

    it('refuses a wrong token with CONNACK 5', async () => {
      const device = await aDevice(stack);

      const refusal = await refusalOf(mqttsUrl, {
        clientId: device.deviceid,
        username: 'wrong-token',
        password: '',
        ca: certificate.cert,
      });

      expect(refusal.code).to.equal(NOT_AUTHORIZED);
    });

    it('is refused by a client that does not trust the certificate', async () => {
      const device = await aDevice(stack);

      const refusal = await refusalOf(mqttsUrl, { clientId: device.deviceid, username: device.token, rejectUnauthorized: true });

      expect(refusal.message).to.match(/self[- ]signed certificate/);
    });

    it('hangs up on a plain MQTT CONNECT without answering CONNACK', async () => {
      const device = await aDevice(stack);

      const answer = await plainConnectTo(stack.server.mqttsPort!, device);

      // At most a TLS alert record (content type 21), never a CONNACK (0x20).
      expect(answer.length === 0 || answer[0] === 21, `got ${answer.toString('hex')}`).to.equal(true);
    });

    it('leaves the plain MQTT port serving beside it', async () => {
      const [a, b] = await aGroup(stack, 2);
      const overTls = await connectDevice(mqttsUrl, a, { ca: certificate.cert });
      const plain = await connectDevice(stack.mqttUrl, b);
      try {
        await plain.subscribeAsync('@msg/mixed');
        const arrived = nextMessage(plain);

        await overTls.publishAsync('@msg/mixed', 'tls to plain', { qos: 1 });

        expect(await arrived).to.deep.equal({ topic: '@msg/mixed', payload: 'tls to plain' });
      } finally {
        await endAll(overTls, plain);
      }
    });
  });

  describe('HTTPS (HTTPS_PORT)', () => {
    it('serves GET /v2/device/status', async () => {
      const device = await aDevice(stack);

      const res = await httpsGet(`${httpsUrl}/v2/device/status`, certificate.cert, { authorization: device.auth });

      expect(res.status).to.equal(200);
      expect(res.body).to.include({ deviceid: device.deviceid, status: 0 });
    });

    it('serves MQTT over WebSocket on /mqtt (wss://), with the same credentials and groups', async () => {
      const [publisher, listener] = await aGroup(stack, 2);
      const client = await connectDevice(`wss://127.0.0.1:${stack.server.httpsPort}/mqtt`, listener, {
        ca: certificate.cert,
        rejectUnauthorized: true,
      });
      try {
        await client.subscribeAsync('@msg/wss');
        const arrived = nextMessage(client);

        await restPublish(stack, publisher, 'wss', 'over wss');

        expect(await arrived).to.deep.equal({ topic: '@msg/wss', payload: 'over wss' });
      } finally {
        await endAll(client);
      }
    });

    it('refuses a wrong token over wss:// with CONNACK 5', async () => {
      const device = await aDevice(stack);

      const refusal = await refusalOf(`wss://127.0.0.1:${stack.server.httpsPort}/mqtt`, {
        clientId: device.deviceid,
        username: 'wrong-token',
        password: '',
        ca: certificate.cert,
      });

      expect(refusal.code).to.equal(NOT_AUTHORIZED);
    });
  });

  describe('ports', () => {
    it('are off without a certificate', async () => {
      const plain = await startStack();
      try {
        expect([plain.server.mqttsPort, plain.server.httpsPort]).to.deep.equal([undefined, undefined]);
      } finally {
        await plain.stop();
      }
    });

    for (const [variable, name, portOf] of [
      ['MQTTS_PORT', 'MQTT over TLS (MQTTS_PORT)', (s: Stack) => s.server.mqttsPort],
      ['HTTPS_PORT', 'HTTPS (HTTPS_PORT)', (s: Stack) => s.server.httpsPort],
    ] as const) {
      it(`give the one-line port-in-use message when ${variable} is taken`, async () => {
        const taken = String(portOf(stack));

        const failure = await startStack({ env: { ...certificate.env, [variable]: taken } }).then(
          (s) => s.stop().then(() => undefined),
          (err: Error) => err,
        );

        expect(failure?.message).to.equal(`${name} port ${taken} on 127.0.0.1 is already in use`);
      });
    }
  });

  describe('stop', () => {
    it('closes at once with sessions, a kept-alive HTTPS connection and connections that never sent a byte', async () => {
      const tls = await startStack({ env: { ...certificate.env, SHUTDOWN_TIMEOUT_MS: '15000' } });
      const [a, b] = await aGroup(tls, 2);
      const overTls = await connectDevice(`mqtts://127.0.0.1:${tls.server.mqttsPort}`, a, { ca: certificate.cert });
      const overWss = await connectDevice(`wss://127.0.0.1:${tls.server.httpsPort}/mqtt`, b, { ca: certificate.cert });
      const keepAlive = new Agent({ keepAlive: true });
      await httpsGet(`https://127.0.0.1:${tls.server.httpsPort}/v2/device/status`, certificate.cert, { authorization: a.auth }, keepAlive);
      const closed = [overTls, overWss].map((c) => new Promise<void>((resolve) => c.once('close', () => resolve())));
      // No TLS handshake on the TLS port, no CONNECT on the plain one: no session owns them.
      const silent = [tls.server.mqttsPort!, tls.server.mqttPort].map((port) => connectTcp(port, '127.0.0.1'));
      const silentClosed = silent.map((socket) => new Promise<void>((resolve) => socket.on('error', () => undefined).once('close', () => resolve())));
      await Promise.all(silent.map((socket) => new Promise((resolve) => socket.once('connect', resolve))));

      const started = Date.now();
      await tls.stop();

      expect(Date.now() - started).to.be.below(3000);
      await Promise.all([...closed, ...silentClosed]);
      keepAlive.destroy();
      await endAll(overTls, overWss);
      const stillListening = await Promise.all([tls.server.mqttsPort!, tls.server.httpsPort!].map(acceptsConnections));
      expect(stillListening).to.deep.equal([false, false]);
    });
  });
});

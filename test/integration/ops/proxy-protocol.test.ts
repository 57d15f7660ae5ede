import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Socket } from 'node:net';
import { createWebSocketStream, WebSocket } from 'ws';
import { MqttClient } from 'mqtt';
import { endAll } from '../../helpers/mqtt';
import {
  connectWithHeader, httpWithHeader, mqttWithHeader, proxyV1, proxyV2, proxyV2Local, tlsConnectWithHeader, untilClosed,
} from '../../helpers/proxy-protocol';
import { Stack, startStack } from '../../helpers/stack';
import { aSelfSignedCertificate, TestCertificate } from '../../helpers/tls';

/** FAILURE_LIMITS.perPair (src/ratelimit/failure-throttle.ts): failures of one address against one target. */
const PER_PAIR = 10;
const WRONG_ADMIN = { authorization: 'Bearer wrong-admin-token-0000' };

/** A source address of the documentation ranges (RFC 5737), fresh for each test so that throttles never overlap. */
let next = 1;
const aSource = () => `203.0.113.${next++}`;

describe('PROXY protocol on the TCP listeners (PROXY_PROTOCOL=true, issue 21)', function () {
  this.timeout(30_000);
  let stack: Stack;
  let cert: TestCertificate;
  before(async () => {
    cert = await aSelfSignedCertificate();
    stack = await startStack({ env: { ...cert.env, PROXY_PROTOCOL: 'true' } });
  });
  after(async () => {
    await stack.stop();
    cert.remove();
  });

  const admin = { authorization: () => ({ authorization: `Bearer ${stack.server.adminToken}` }) };
  const httpPort = () => stack.server.httpPort;
  const mqttPort = () => stack.server.mqttPort;

  async function aDeviceVia(header: Buffer) {
    const body = { projectid: `p-${randomUUID().slice(0, 8)}`, groupid: `g-${randomUUID().slice(0, 8)}`, alias: `dev-${randomUUID().slice(0, 8)}` };
    const res = await httpWithHeader(header, stack.baseUrl, 'POST', '/v2/admin/devices', admin.authorization(), body);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body as { deviceid: string; token: string };
  }

  it('HTTP, v1 header: the admin audit log records the address the header names, not the balancer\'s', async () => {
    const source = aSource();
    const device = await aDeviceVia(proxyV1(source));

    const audit = await httpWithHeader(proxyV1(aSource()), stack.baseUrl, 'GET', '/v2/admin/audit?limit=1000', admin.authorization());

    const entry = (audit.body.entries as { source: string; targets: string[] }[]).find((e) => JSON.stringify(e).includes(device.deviceid));
    expect(entry?.source).to.equal(source);
  });

  it('HTTP, v2 header with TLVs: the guessing throttle refuses the address in the header after 10 failures, while another header address on the same socket address is served', async () => {
    const guesser = proxyV2(aSource(), 50000, Buffer.from([0x04, 0x00, 0x02, 0x68, 0x32])); // a NOOP TLV (2.2.5)
    for (let i = 0; i < PER_PAIR; i++) {
      expect((await httpWithHeader(guesser, stack.baseUrl, 'GET', '/v2/admin/service', WRONG_ADMIN)).status).to.equal(401);
    }

    const throttled = await httpWithHeader(guesser, stack.baseUrl, 'GET', '/v2/admin/service', admin.authorization());
    const other = await httpWithHeader(proxyV2(aSource()), stack.baseUrl, 'GET', '/v2/admin/service', admin.authorization());

    expect(throttled.status).to.equal(429);
    expect(other.status).to.equal(200);
  });

  it('HTTPS: the header comes before the TLS handshake, and its address is the one throttled', async () => {
    const source = aSource();
    for (let i = 0; i < PER_PAIR; i++) {
      const socket = await tlsConnectWithHeader(stack.server.httpsPort!, proxyV1(source), cert.cert);
      socket.end(`GET /v2/admin/service HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${WRONG_ADMIN.authorization}\r\nConnection: close\r\n\r\n`);
      expect((await untilClosed(socket)).received).to.match(/^HTTP\/1\.1 401 /);
    }

    const throttled = await httpWithHeader(proxyV1(source), stack.baseUrl, 'GET', '/v2/admin/service', admin.authorization());

    expect(throttled.status).to.equal(429);
  });

  for (const [version, headerFor] of [['v1', proxyV1], ['v2', proxyV2]] as const) {
    it(`MQTT over TCP, ${version} header: CONNECT is throttled by the address in the header; another header address connects`, async () => {
      const device = await aDeviceVia(proxyV1(aSource()));
      const guesser = aSource();
      const connect = (source: string, token: string) =>
        mqttWithHeader(headerFor(source), mqttPort(), { clientId: device.deviceid, username: token }).then(
          (client) => client,
          (err: { code?: number }) => err.code,
        );
      for (let i = 0; i < PER_PAIR; i++) expect(await connect(guesser, 'x'.repeat(device.token.length))).to.equal(5);

      const throttled = await connect(guesser, device.token);
      const owner = await connect(aSource(), device.token);

      expect(throttled).to.equal(3);
      expect((owner as MqttClient).connected).to.equal(true);
      await endAll(owner as MqttClient);
    });
  }

  it('MQTTS and MQTT over WebSocket on the HTTP port: the address in the header is the one throttled', async () => {
    const device = await aDeviceVia(proxyV1(aSource()));
    const [overTls, overWs] = [aSource(), aSource()];
    const wrong = { clientId: device.deviceid, username: 'x'.repeat(device.token.length) };
    const openTls = (port: number, header: Buffer) => tlsConnectWithHeader(port, header, cert.cert);
    const openWs = (port: number, header: Buffer) =>
      createWebSocketStream(new WebSocket(`ws://127.0.0.1:${port}/mqtt`, 'mqtt', { createConnection: () => connectWithHeader(port, header) })) as unknown as Socket;
    for (let i = 0; i < PER_PAIR; i++) {
      expect(await mqttWithHeader(proxyV1(overTls), stack.server.mqttsPort!, wrong, openTls).catch((err: { code?: number }) => err.code)).to.equal(5);
      expect(await mqttWithHeader(proxyV1(overWs), httpPort(), wrong, openWs).catch((err: { code?: number }) => err.code)).to.equal(5);
    }

    const right = { clientId: device.deviceid, username: device.token };
    for (const source of [overTls, overWs]) {
      expect(await mqttWithHeader(proxyV1(source), mqttPort(), right).catch((err: { code?: number }) => err.code)).to.equal(3);
    }
  });

  it("serves a v2 LOCAL header (the balancer's own health check) with the connection's own address", async () => {
    expect((await httpWithHeader(proxyV2Local(), stack.baseUrl, 'GET', '/readyz')).status).to.equal(200);
  });

  it('waits for a header that comes in pieces', async () => {
    const header = proxyV1(aSource());
    const socket = connectWithHeader(httpPort(), header.subarray(0, 9));
    await new Promise((r) => setTimeout(r, 50));
    socket.write(header.subarray(9));
    socket.end('GET /readyz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');

    expect((await untilClosed(socket)).received).to.match(/^HTTP\/1\.1 200 /);
  });

  const noHeader = Buffer.alloc(0);
  for (const [what, header] of [
    ['without a header', noHeader],
    ['with a malformed v1 header', Buffer.from('PROXY TCP4 203.0.113.300 127.0.0.1 1 2\r\n')],
    ['with a v1 line longer than 107 bytes', Buffer.from(`PROXY TCP4 ${' '.repeat(120)}\r\n`)],
    ['with a v2 header of an unknown command', Buffer.concat([proxyV2('203.0.113.9').subarray(0, 12), Buffer.from([0x22, 0x11, 0, 12]), Buffer.alloc(12)])],
  ] as const) {
    it(`closes an HTTP and an MQTT connection ${what}, unanswered`, async () => {
      const http = connectWithHeader(httpPort(), header);
      http.write('GET /readyz HTTP/1.1\r\nHost: localhost\r\n\r\n');
      const mqtt = connectWithHeader(mqttPort(), header);
      mqtt.write(Buffer.from('101000044d5154540402003c0004746573740000', 'hex')); // CONNECT, 3.1.1

      const [httpEnd, mqttEnd] = await Promise.all([untilClosed(http), untilClosed(mqtt)]);

      expect(httpEnd).to.deep.equal({ received: '', timedOut: false });
      expect(mqttEnd).to.deep.equal({ received: '', timedOut: false });
    });
  }
});

describe('PROXY_PROTOCOL_TRUSTED', function () {
  this.timeout(30_000);
  it('closes a connection with a valid header from an address outside the list', async () => {
    const stack = await startStack({ env: { PROXY_PROTOCOL: 'true', PROXY_PROTOCOL_TRUSTED: '10.0.0.0/8,192.0.2.1' } });
    try {
      const socket = connectWithHeader(stack.server.httpPort, proxyV1('203.0.113.1'));
      socket.write('GET /readyz HTTP/1.1\r\nHost: localhost\r\n\r\n');
      expect(await untilClosed(socket)).to.deep.equal({ received: '', timedOut: false });
    } finally {
      await stack.stop();
    }
  });

  it('serves a header from an address in the list (IPv4 loopback, as 127.0.0.0/8)', async () => {
    const stack = await startStack({ env: { PROXY_PROTOCOL: 'true', PROXY_PROTOCOL_TRUSTED: '127.0.0.0/8' } });
    try {
      expect((await httpWithHeader(proxyV1('203.0.113.1'), stack.baseUrl, 'GET', '/readyz')).status).to.equal(200);
    } finally {
      await stack.stop();
    }
  });
});

describe('without PROXY_PROTOCOL, a PROXY header is not trusted', function () {
  this.timeout(30_000);
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('is a bad HTTP request (400)', async () => {
    expect((await httpWithHeader(proxyV1('203.0.113.1'), stack.baseUrl, 'GET', '/readyz')).status).to.equal(400);
  });

  it('closes an MQTT connection that starts with one', async () => {
    const socket = connectWithHeader(stack.server.mqttPort, proxyV2('203.0.113.1'));
    const end = await untilClosed(socket);
    expect(end.timedOut).to.equal(false);
    expect(end.received).to.equal('');
  });
});

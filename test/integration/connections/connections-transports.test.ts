import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Socket } from 'node:net';
import type { MqttClient } from 'mqtt';
import { createWebSocketStream, WebSocket } from 'ws';
import { endAll, sleep } from '../../helpers/mqtt';
import { httpWithHeader, mqttWithHeader, proxyV1, tlsConnectWithHeader } from '../../helpers/proxy-protocol';
import { Stack, startStack } from '../../helpers/stack';
import { aSelfSignedCertificate, TestCertificate } from '../../helpers/tls';

/**
 * TLS and WebSocket over TLS behind a balancer speaking the PROXY protocol (PROXY_PROTOCOL=true): the inspector names
 * the transport and the address the balancer's header gives, not the balancer's own.
 */
describe('connection inspector: tls and wss behind the PROXY protocol', function () {
  this.timeout(30_000);
  let stack: Stack;
  let cert: TestCertificate;
  const clients: MqttClient[] = [];
  before(async () => {
    cert = await aSelfSignedCertificate();
    stack = await startStack({ env: { ...cert.env, PROXY_PROTOCOL: 'true' } });
  });
  after(async () => {
    await endAll(...clients);
    await stack.stop();
    cert.remove();
  });

  /** Admin calls from the balancer's own address (a v1 header naming loopback). */
  const admin = (method: string, path: string, body?: unknown) =>
    httpWithHeader(proxyV1('127.0.0.1'), stack.baseUrl, method, path, { authorization: `Bearer ${stack.server.adminToken}` }, body);

  async function liveConnection(deviceid: string) {
    const deadline = Date.now() + 3000;
    for (;;) {
      const res = await admin('GET', `/v2/admin/devices/${deviceid}/connections`);
      expect(res.status).to.equal(200);
      if (res.body.connections.length === 1 || Date.now() > deadline) return res.body.connections[0];
      await sleep(20);
    }
  }

  async function aDevice() {
    const res = await admin('POST', '/v2/admin/devices', { projectid: `p-${randomUUID().slice(0, 8)}`, groupid: 'g', alias: `d-${randomUUID().slice(0, 8)}` });
    expect(res.status).to.equal(201);
    return res.body as { deviceid: string; token: string };
  }

  it('MQTT over TLS: transport tls, the address of the header', async () => {
    const device = await aDevice();
    const openTls = (port: number, header: Buffer) => tlsConnectWithHeader(port, header, cert.cert);
    clients.push(await mqttWithHeader(proxyV1('203.0.113.21'), stack.server.mqttsPort!, { clientId: device.deviceid, username: device.token }, openTls));

    expect(await liveConnection(device.deviceid)).to.include({ transport: 'tls', address: '203.0.113.21' });
  });

  it('MQTT over WebSocket over TLS: transport wss, the address of the header', async () => {
    const device = await aDevice();
    const openWss = async (port: number, header: Buffer) => {
      const tls = await tlsConnectWithHeader(port, header, cert.cert);
      return createWebSocketStream(new WebSocket(`wss://localhost:${port}/mqtt`, 'mqtt', { createConnection: () => tls })) as unknown as Socket;
    };
    clients.push(await mqttWithHeader(proxyV1('203.0.113.22'), stack.server.httpsPort!, { clientId: device.deviceid, username: device.token, protocolVersion: 5 }, openWss));

    expect(await liveConnection(device.deviceid)).to.include({ transport: 'wss', version: 5, address: '203.0.113.22' });
  });
});

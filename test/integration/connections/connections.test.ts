import { connect as tcpConnect, Socket } from 'node:net';
import { expect } from 'chai';
import type { MqttClient } from 'mqtt';
import { CONNECTION_LOG_LIMITS } from '../../../src/connections/limits';
import { aDevice, TestDevice } from '../../helpers/devices';
import { connectDevice, connectRaw, endAll } from '../../helpers/mqtt';
import { frame, utf8 } from '../../helpers/mqtt-raw';
import { startStack, Stack } from '../../helpers/stack';
import { connectionsOf } from './inspect';

/** A raw MQTT 3.1.1 connection that sends CONNECT with `keepalive` seconds and then nothing at all. */
function silentConnection(port: number, device: TestDevice, keepalive: number): Promise<Socket> {
  const connect = frame(0x10, Buffer.concat([utf8('MQTT'), Buffer.from([4, 0x82, 0, keepalive]), utf8(device.deviceid), utf8(device.token)]));
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(port, '127.0.0.1', () => socket.write(connect));
    socket.once('data', () => resolve(socket));
    socket.once('error', reject);
  });
}

const closedOf = (client: MqttClient) => new Promise<void>((resolve) => client.once('close', () => resolve()));

describe('connection inspector: GET /v2/admin/devices/:deviceid/connections, POST .../kick', () => {
  let stack: Stack;
  let device: TestDevice;
  const clients: MqttClient[] = [];
  before(async () => {
    stack = await startStack();
  });
  beforeEach(async () => {
    device = await aDevice(stack);
  });
  afterEach(() => endAll(...clients.splice(0)));
  after(() => stack.stop());

  it('shows a TCP connection with its version, address, keepalive and subscriptions as the device wrote them', async () => {
    const client = await connectDevice(stack.mqttUrl, device, { protocolVersion: 4, keepalive: 42 });
    clients.push(client);
    await client.subscribeAsync('@msg/room/+/temp', { qos: 1 });
    await client.subscribeAsync('@private/#', { qos: 0 });

    const body = await connectionsOf(stack, device.deviceid, (b) => b.connections[0]?.subscriptions.length === 2);

    expect(body.deviceid).to.equal(device.deviceid);
    expect(body.connections).to.have.length(1);
    const [live] = body.connections;
    expect(live).to.include({ transport: 'tcp', version: 4, address: '127.0.0.1', keepalive: 42, clean: true, queued: 0, inFlight: 0 });
    expect(Date.parse(live.connectedSince)).to.be.closeTo(Date.now(), 5000);
    expect(live.subscriptions).to.have.deep.members([
      { filter: '@msg/room/+/temp', qos: 1 },
      { filter: '@private/#', qos: 0 },
    ]);
    expect(body.history[0]).to.include({ kind: 'connected', transport: 'tcp', version: 4 });
    expect(body.nodes).to.deep.equal({ answered: [live.node], silent: [] });
  });

  it('shows a WebSocket connection taking over the TCP one, and the TCP one ended "taken over" [MQTT-3.1.4-3]', async () => {
    const tcp = await connectDevice(stack.mqttUrl, device, { protocolVersion: 4 });
    const tcpClosed = closedOf(tcp);
    const ws = await connectDevice(stack.mqttWsUrl, device, { protocolVersion: 5 });
    clients.push(tcp, ws);
    await ws.subscribeAsync('@msg/a', { qos: 2 });
    await tcpClosed;

    const body = await connectionsOf(stack, device.deviceid, (b) => b.history.length >= 3 && b.connections[0]?.subscriptions.length === 1);

    expect(body.connections).to.have.length(1);
    expect(body.connections[0]).to.include({ transport: 'ws', version: 5 });
    expect(body.connections[0].subscriptions).to.deep.equal([{ filter: '@msg/a', qos: 2 }]);
    const kinds = body.history.map((e: any) => [e.kind, e.transport, e.reason]);
    expect(kinds).to.deep.include(['disconnected', 'tcp', 'taken over']);
    expect(kinds).to.deep.include(['connected', 'ws', undefined]);
  });

  it('records a client DISCONNECT and a refusal with their reasons, and never shows the token', async () => {
    const client = await connectDevice(stack.mqttUrl, device);
    await client.endAsync();
    const refused = await connectRaw(stack.mqttUrl, { clientId: device.deviceid, username: 'not-the-token', password: '' }).catch((err: Error) => err);
    expect(refused).to.be.instanceOf(Error);

    const body = await connectionsOf(stack, device.deviceid, (b) => b.history.length >= 3);

    expect(body.connections).to.deep.equal([]);
    const [refusal, disconnect, connect] = body.history;
    expect(refusal).to.include({ kind: 'refused', reason: 'bad credentials', transport: 'tcp' });
    expect(refusal.detail).to.be.a('string');
    expect(disconnect).to.include({ kind: 'disconnected', reason: 'client DISCONNECT' });
    expect(connect).to.include({ kind: 'connected' });
    const text = JSON.stringify(body);
    expect(text).not.to.include(device.token);
    expect(text).not.to.include('not-the-token');
  });

  it('records a keepalive timeout [MQTT-3.1.2-24] and a connection lost without DISCONNECT', async () => {
    const port = Number(new URL(stack.mqttUrl).port);
    const silent = await silentConnection(port, device, 1);
    await new Promise((resolve) => silent.once('close', resolve));
    const dropped = await silentConnection(port, device, 60);
    dropped.destroy();

    const body = await connectionsOf(stack, device.deviceid, (b) => b.history.filter((e: any) => e.kind === 'disconnected').length === 2);

    const reasons = body.history.filter((e: any) => e.kind === 'disconnected').map((e: any) => e.reason);
    expect(reasons).to.deep.equal(['connection lost', 'keepalive timeout']);
  });

  it('kicks: closes the connection and records the kick and the disconnect with its reason', async () => {
    const client = await connectDevice(stack.mqttUrl, device, { protocolVersion: 5 });
    clients.push(client);
    const disconnect = new Promise<any>((resolve) => client.once('disconnect', resolve));
    const closed = closedOf(client);
    await connectionsOf(stack, device.deviceid, (b) => b.connections.length === 1);

    const res = await stack.admin('POST', `/v2/admin/devices/${device.deviceid}/kick`, { body: { reason: 'firmware swap' } });

    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ deviceid: device.deviceid, reason: 'kicked by an operator: firmware swap' });
    // MQTT 5 hears why: DISCONNECT 0x98 Administrative action with the reason [MQTT-3.14.2-1].
    const packet = await disconnect;
    expect(packet.reasonCode).to.equal(0x98);
    expect(packet.properties?.reasonString).to.equal('kicked by an operator: firmware swap');
    await closed;
    const body = await connectionsOf(stack, device.deviceid, (b) => b.history.some((e: any) => e.kind === 'disconnected'));
    expect(body.connections).to.deep.equal([]);
    expect(body.history[0]).to.include({ kind: 'disconnected', reason: 'kicked', detail: 'kicked by an operator: firmware swap' });
    expect(body.history[1]).to.include({ kind: 'kicked', reason: 'kicked by an operator: firmware swap' });
  });

  it('kicks without a body, and answers 404 for a device that does not exist and 400 for a bad body', async () => {
    expect((await stack.admin('POST', `/v2/admin/devices/${device.deviceid}/kick`)).status).to.equal(200);
    const missing = await stack.admin('GET', '/v2/admin/devices/00000000-0000-4000-8000-000000000000/connections');
    expect(missing.status).to.equal(404);
    expect(missing.body.code).to.equal('DEVICE_NOT_FOUND');
    const long = await stack.admin('POST', `/v2/admin/devices/${device.deviceid}/kick`, { body: { reason: 'x'.repeat(201) } });
    expect(long.status).to.equal(400);
    const unknown = await stack.admin('POST', `/v2/admin/devices/${device.deviceid}/kick`, { body: { why: 'x' } });
    expect(unknown.status).to.equal(400);
  });

  it('lets a viewer read the connections and refuses it the kick (operator)', async () => {
    const made = await stack.admin('POST', '/v2/admin/operators', { body: { name: `viewer-${device.deviceid.slice(0, 8)}`, role: 'viewer' } });
    expect(made.status, made.text).to.equal(201);
    const asViewer = { authorization: `Bearer ${made.body.key}` };

    const read = await stack.http('GET', `/v2/admin/devices/${device.deviceid}/connections`, { headers: asViewer });
    const kick = await stack.http('POST', `/v2/admin/devices/${device.deviceid}/kick`, { headers: asViewer });

    expect(read.status).to.equal(200);
    expect(kick.status).to.equal(403);
    expect(kick.body.code).to.equal('ROLE_FORBIDDEN');
  });

  it(`keeps the last ${CONNECTION_LOG_LIMITS.eventsPerDevice} events of a device, throttled guessing among them`, async () => {
    const attempts = CONNECTION_LOG_LIMITS.eventsPerDevice + 5;
    for (let i = 0; i < attempts; i++) {
      await connectRaw(stack.mqttUrl, { clientId: device.deviceid, username: `wrong-${i}`, password: '' }).catch(() => undefined);
    }

    const body = await connectionsOf(stack, device.deviceid, (b) => b.history.length === CONNECTION_LOG_LIMITS.eventsPerDevice);

    expect(body.history).to.have.length(CONNECTION_LOG_LIMITS.eventsPerDevice);
    expect(body.history.every((e: any) => e.kind === 'refused')).to.equal(true);
    expect(body.history[0].reason).to.equal('throttled guessing');
  });
});

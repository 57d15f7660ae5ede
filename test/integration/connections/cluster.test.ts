import { expect } from 'chai';
import type { MqttClient } from 'mqtt';
import { backboneEnvOrSkip, Cluster, startCluster } from '../../helpers/cluster';
import { aDevice } from '../../helpers/devices';
import { connectDevice, endAll } from '../../helpers/mqtt';
import { Stack } from '../../helpers/stack';
import { connectionsOf } from './inspect';

/**
 * The inspector across two nodes joined by the backbone (real Mosquitto): each node keeps its own history and live
 * connections, and the node asked gathers the others' parts over the backbone (openpie/v1/inspect/{node}).
 */
describe('connection inspector across nodes (real Mosquitto)', () => {
  let cluster: Cluster | undefined;
  let a: Stack;
  let b: Stack;
  const clients: MqttClient[] = [];
  before(async function () {
    const env = backboneEnvOrSkip(this);
    cluster = await startCluster(2, env);
    [a, b] = cluster.nodes;
  });
  afterEach(() => endAll(...clients.splice(0)));
  after(() => cluster?.stop());

  it('lists on node A a device connected to node B, with B\'s history, and names both nodes as answered', async () => {
    const device = await aDevice(a);
    const client = await connectDevice(b.mqttUrl, device);
    clients.push(client);
    await client.subscribeAsync('@msg/x', { qos: 1 });

    const body = await connectionsOf(a, device.deviceid, (res) => res.connections[0]?.subscriptions.length === 1);

    expect(body.connections).to.have.length(1);
    const [live] = body.connections;
    expect(live).to.include({ transport: 'tcp', version: 4 });
    expect(live.subscriptions).to.deep.equal([{ filter: '@msg/x', qos: 1 }]);
    expect(body.nodes.answered).to.have.length(2).and.include(live.node);
    expect(body.nodes.silent).to.deep.equal([]);
    expect(body.history.find((e: any) => e.kind === 'connected').node).to.equal(live.node);
  });

  it('records a take-over from node B to node A on B [MQTT-3.1.4-3]', async () => {
    const device = await aDevice(a);
    const first = await connectDevice(b.mqttUrl, device);
    const closed = new Promise<void>((resolve) => first.once('close', () => resolve()));
    await connectionsOf(a, device.deviceid, (res) => res.connections.length === 1);
    const second = await connectDevice(a.mqttUrl, device);
    clients.push(first, second);
    await closed;

    const body = await connectionsOf(a, device.deviceid, (r) => r.history.some((e: any) => e.kind === 'disconnected'));
    expect(body.connections).to.have.length(1);
    const ended = body.history.find((e: any) => e.kind === 'disconnected');
    expect(ended).to.include({ reason: 'taken over', detail: 'session taken over on another node' });
    expect(ended.node).not.to.equal(body.connections[0].node);
  });

  it('kicks from node A the session on node B, and B records why', async () => {
    const device = await aDevice(a);
    const client = await connectDevice(b.mqttUrl, device);
    clients.push(client);
    const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    await connectionsOf(a, device.deviceid, (res) => res.connections.length === 1);

    const res = await a.admin('POST', `/v2/admin/devices/${device.deviceid}/kick`, { body: { reason: 'rebalance' } });
    expect(res.status, res.text).to.equal(200);
    await closed;

    const body = await connectionsOf(a, device.deviceid, (r) => r.history.some((e: any) => e.kind === 'disconnected'));
    expect(body.connections).to.deep.equal([]);
    const kicked = body.history.find((e: any) => e.kind === 'kicked');
    const ended = body.history.find((e: any) => e.kind === 'disconnected');
    expect(ended).to.include({ reason: 'kicked', detail: 'kicked by an operator: rebalance (on another node)' });
    expect(ended.node).not.to.equal(kicked.node);
  });
});

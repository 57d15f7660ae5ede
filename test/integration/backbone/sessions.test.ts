import { expect } from 'chai';
import mqtt from 'mqtt';
import { randomUUID } from 'node:crypto';
import { byeTopic, presenceTopic } from '../../../src/adapters/backbone/backbone-topics';
import { backboneEnvOrSkip, Cluster, startCluster } from '../../helpers/cluster';
import { aDevice, TestDevice } from '../../helpers/devices';
import { collect, connectDevice, endAll, sleep } from '../../helpers/mqtt';
import { closeOf, presenceBecomes } from '../../helpers/mqtt-expect';
import { Stack } from '../../helpers/stack';

/** How long presence may take to cross the backbone. */
const CROSSING_MS = 3000;

/** `status` as the admin API of `node` reports it; unlike GET /v2/device/status, reading it is no REST call of the device. */
async function adminStatusOf(node: Stack, device: TestDevice): Promise<number> {
  const res = await node.admin('GET', `/v2/admin/devices/${device.deviceid}`);
  if (res.status !== 200) throw new Error(`GET /v2/admin/devices answered ${res.status} ${res.text}`);
  return res.body.status;
}

async function adminStatusBecomes(node: Stack, device: TestDevice, want: number, ms = CROSSING_MS): Promise<number> {
  const deadline = Date.now() + ms;
  for (;;) {
    const status = await adminStatusOf(node, device);
    if (status === want || Date.now() > deadline) return status;
    await sleep(25);
  }
}

describe('MQTT backbone: presence and sessions across nodes (real Mosquitto)', () => {
  let env: Record<string, string>;
  let cluster: Cluster | undefined;
  let a: Stack;
  let b: Stack;
  before(async function () {
    env = backboneEnvOrSkip(this);
    cluster = await startCluster(2, env);
    [a, b] = cluster.nodes;
  });
  after(() => cluster?.stop());

  describe('presence', () => {
    it('shows a device connected to node A as online (1) on node B, and offline (0) once it disconnects', async () => {
      const device = await aDevice(a);
      const client = await connectDevice(a.mqttUrl, device);
      try {
        expect(await presenceBecomes(b, device, 1, CROSSING_MS)).to.equal(1);
      } finally {
        await client.endAsync();
      }
      expect(await presenceBecomes(b, device, 0, CROSSING_MS)).to.equal(0);
    });

    it('shows a device dropped without DISCONNECT as offline on the other node too', async () => {
      const device = await aDevice(a);
      const client = await connectDevice(b.mqttUrl, device);
      expect(await adminStatusBecomes(a, device, 1)).to.equal(1);

      client.stream.destroy();

      expect(await adminStatusBecomes(a, device, 0)).to.equal(0);
      await endAll(client);
    });

    it('keeps a device with a liveness TTL online on node B after a REST call on node A', async () => {
      const device = await aDevice(a, { livenessttl: 60 });
      expect(await adminStatusOf(b, device)).to.equal(0);

      const res = await a.http('GET', '/v2/device/status', { headers: { authorization: device.auth } });

      expect(res.status).to.equal(200);
      expect(await adminStatusBecomes(b, device, 1)).to.equal(1);
    });

    it('tells a node that joins later which devices are online on the others', async () => {
      const device = await aDevice(a);
      const client = await connectDevice(a.mqttUrl, device);
      try {
        expect(await adminStatusBecomes(b, device, 1)).to.equal(1);

        const late = await cluster!.addNode();

        expect(await adminStatusBecomes(late, device, 1)).to.equal(1);
      } finally {
        await client.endAsync();
      }
    });

    it('takes a stopped node\'s devices offline on the others', async () => {
      const small = await startCluster(2, env);
      try {
        const [leaving, staying] = small.nodes;
        const device = await aDevice(leaving);
        const client = await connectDevice(leaving.mqttUrl, device);
        client.on('error', () => undefined);
        expect(await adminStatusBecomes(staying, device, 1)).to.equal(1);

        await leaving.stop();

        expect(await adminStatusBecomes(staying, device, 0)).to.equal(0);
        await endAll(client);
      } finally {
        await small.stop();
      }
    });

    it('takes the devices of a node that dies (its Last Will on the backbone) offline on the others', async () => {
      const device = await aDevice(a);
      const node = `test-dying-${randomUUID().slice(0, 8)}`;
      const dying = await mqtt.connectAsync(env.BACKBONE_URL, {
        protocolVersion: 5,
        clientId: `openpie-${node}`,
        username: env.BACKBONE_USERNAME,
        password: env.BACKBONE_PASSWORD,
        reconnectPeriod: 0,
        will: { topic: byeTopic(node), payload: Buffer.alloc(0), qos: 1, retain: false },
      });
      try {
        await dying.publishAsync(presenceTopic(node), JSON.stringify({ full: true, connections: { [device.deviceid]: 1 } }), { qos: 1 });
        expect(await adminStatusBecomes(b, device, 1)).to.equal(1);

        dying.stream.destroy();

        expect(await adminStatusBecomes(b, device, 0)).to.equal(0);
      } finally {
        await dying.endAsync(true);
      }
    });
  });

  describe('kicks', () => {
    const kicks: [string, (node: Stack, device: TestDevice) => Promise<{ status: number }>][] = [
      ['disabling', (node, d) => node.admin('PATCH', `/v2/admin/devices/${d.deviceid}`, { body: { enabled: false } })],
      ['banning', (node, d) => node.admin('PATCH', `/v2/admin/devices/${d.deviceid}`, { body: { banned: true } })],
      ['deleting', (node, d) => node.admin('DELETE', `/v2/admin/devices/${d.deviceid}`)],
      ['rotating the token of', (node, d) => node.admin('POST', `/v2/admin/devices/${d.deviceid}/token`)],
      ['moving to another group', (node, d) => node.admin('PATCH', `/v2/admin/devices/${d.deviceid}`, { body: { groupid: 'elsewhere' } })],
    ];
    for (const [what, act] of kicks) {
      it(`${what} a device through node A's admin API closes its session on node B`, async () => {
        const [device, bystander] = [await aDevice(a), await aDevice(a)];
        const [client, other] = [await connectDevice(b.mqttUrl, device), await connectDevice(b.mqttUrl, bystander)];
        try {
          const closed = closeOf(client, CROSSING_MS);

          const res = await act(a, device);

          expect(res.status).to.be.within(200, 204);
          await closed;
          await sleep(100);
          expect(other.connected, 'another device on node B').to.equal(true);
        } finally {
          await endAll(client, other);
        }
      });
    }

    it('lets a device that moves from node A to node B take its session over, as on one node', async () => {
      const device = await aDevice(a);
      const first = await connectDevice(a.mqttUrl, device);
      try {
        const closed = closeOf(first, CROSSING_MS);
        const second = await connectDevice(b.mqttUrl, device);
        try {
          await closed;
          await second.subscribeAsync('@private/#');
          const seen = collect(second);
          await a.http('PUT', '/v2/device/private/hello', { body: 'still here', headers: { authorization: device.auth } });
          await sleep(300);

          expect(second.connected).to.equal(true);
          expect(seen).to.deep.equal([{ topic: '@private/hello', payload: 'still here' }]);
          expect(await adminStatusOf(a, device)).to.equal(1);
        } finally {
          await endAll(second);
        }
      } finally {
        await endAll(first);
      }
    });
  });
});

import { expect } from 'chai';
import { MqttClient } from 'mqtt';
import { backboneEnvOrSkip, Cluster, startCluster } from '../../helpers/cluster';
import { aGroup } from '../../helpers/devices';
import { connectDevice, endAll, nextMessage } from '../../helpers/mqtt';
import { asDevice } from '../../helpers/rest-device';
import { Stack } from '../../helpers/stack';

const DELTA = '@shadow/desired/delta';

/** Issue 25 §2 across nodes: the delta reaches the device on whichever node it is connected, as @shadow/data/updated does. */
describe('MQTT backbone: the desired delta reaches a device on another node (real Mosquitto)', () => {
  let cluster: Cluster | undefined;
  let a: Stack;
  let b: Stack;
  before(async function () {
    const env = backboneEnvOrSkip(this);
    cluster = await startCluster(2, env);
    [a, b] = cluster.nodes;
  });
  after(() => cluster?.stop());

  it('pushes a desired write made through node A to the device connected to node B', async () => {
    const [device] = await aGroup(a, 1);
    let client: MqttClient | undefined;
    try {
      client = await connectDevice(b.mqttUrl, device);
      await client.subscribeAsync(DELTA, { qos: 1 });
      const pushed = nextMessage(client, (t) => t === DELTA, 5000);

      const res = await a.admin('PUT', `/v2/admin/devices/${device.deviceid}/shadow/desired`, { body: { data: { led: 'on' } } });

      expect(res.status, res.text).to.equal(200);
      expect(JSON.parse((await pushed).payload)).to.deep.include({ deviceid: device.deviceid, delta: { led: 'on' }, rev: 1 });
    } finally {
      await endAll(client);
    }
  });

  it('has node B push the emptied delta after a data write there, though it learnt of the desired document from node A', async () => {
    const [device] = await aGroup(a, 1);
    let client: MqttClient | undefined;
    try {
      // Node B answers "no desired state" for the device first, and keeps the answer.
      expect((await asDevice(b, device)('PUT', '/v2/device/shadow/data', { body: { data: { led: 'off' } } })).status).to.equal(200);
      client = await connectDevice(b.mqttUrl, device);
      await client.subscribeAsync(DELTA, { qos: 1 });
      const first = nextMessage(client, (t) => t === DELTA, 5000);
      await a.admin('PUT', `/v2/admin/devices/${device.deviceid}/shadow/desired`, { body: { data: { led: 'on' } } });
      await first;

      const emptied = nextMessage(client, (t) => t === DELTA, 3000);
      expect((await asDevice(b, device)('PUT', '/v2/device/shadow/data', { body: { data: { led: 'on' } } })).status).to.equal(200);

      expect(JSON.parse((await emptied).payload)).to.deep.include({ delta: {}, rev: 1, datarev: 2 });
    } finally {
      await endAll(client);
    }
  });
});

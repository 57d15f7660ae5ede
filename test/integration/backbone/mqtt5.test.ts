import { expect } from 'chai';
import { request } from 'node:http';
import { backboneEnvOrSkip, Cluster, startCluster } from '../../helpers/cluster';
import { aGroup, TestDevice } from '../../helpers/devices';
import { endAll } from '../../helpers/mqtt';
import { connect5, nextPublish } from '../../helpers/mqtt5';
import { Stack } from '../../helpers/stack';

/** A REST publish with extra headers; resolves with the status. */
function putMessage(stack: Stack, device: TestDevice, topic: string, body: string, headers: Record<string, string | string[]>) {
  return new Promise<number>((resolve, reject) => {
    const req = request(`${stack.baseUrl}/v2/device/message/${topic}`, { method: 'PUT', headers: { authorization: device.auth, ...headers } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('MQTT backbone: MQTT 5 properties across two nodes (real Mosquitto)', () => {
  let cluster: Cluster | undefined;
  let a: Stack;
  let b: Stack;
  before(async function () {
    cluster = await startCluster(2, backboneEnvOrSkip(this));
    [a, b] = cluster.nodes;
  });
  after(() => cluster?.stop());

  it('[MQTT-3.3.2-17] a device publish on node A reaches node B with its properties, even user properties named like the backbone\'s own', async () => {
    const [publisher, listener] = await aGroup(a, 2);
    const rx = await connect5(b.mqttUrl, listener);
    const tx = await connect5(a.mqttUrl, publisher);
    try {
      await rx.client.subscribeAsync('@msg/cross', { qos: 1 });
      const arrived = nextPublish(rx.client);
      const properties = {
        contentType: 'text/plain',
        userProperties: { origin: 'forged-node', qos: '2', unit: 'C' },
        correlationData: Buffer.from('c1'),
        responseTopic: '@msg/back',
      };
      await tx.client.publishAsync('@msg/cross', 'hello', { qos: 1, properties });
      const packet = await arrived;
      expect(packet.payload.toString()).to.equal('hello');
      expect(packet.properties).to.deep.include(properties);
    } finally {
      await endAll(rx.client, tx.client);
    }
  });

  it('a REST publish on node A with X-MQTT headers reaches node B with the properties', async () => {
    const [publisher, listener] = await aGroup(a, 2);
    const rx = await connect5(b.mqttUrl, listener);
    try {
      await rx.client.subscribeAsync('@msg/rest-cross');
      const arrived = nextPublish(rx.client);
      const status = await putMessage(a, publisher, 'rest-cross', '{}', { 'content-type': 'application/json', 'x-mqtt-user-property': ['k=v'] });
      expect(status).to.equal(200);
      expect((await arrived).properties).to.deep.include({ contentType: 'application/json', userProperties: { k: 'v' } });
    } finally {
      await endAll(rx.client);
    }
  });
});

import { expect } from 'chai';
import { backboneEnvOrSkip, Cluster, startCluster } from '../../helpers/cluster';
import { aGroup } from '../../helpers/devices';
import { endAll } from '../../helpers/mqtt';
import { connect5, publishesTo } from '../../helpers/mqtt5';
import { untilSeen } from '../../helpers/conformance-mqtt';

/**
 * MQTT 5 (OASIS mqtt-v5.0-os) shared subscriptions when the members are connected to different nodes of one service
 * (two nodes joined by the MQTT backbone): the Eclipse Paho interoperability test's shared subscription behaviour, with
 * one member per node. Needs BACKBONE_URL (infra/start-all.sh), which `npm test` provides.
 */
describe('MQTT 5 conformance: shared subscriptions across nodes (Paho interoperability)', function () {
  this.timeout(30_000);
  let cluster: Cluster | undefined;
  before(async function () {
    cluster = await startCluster(2, backboneEnvOrSkip(this));
  });
  after(() => cluster?.stop());

  it('[MQTT-4.8.2-1] [MQTT-4.8.2-2] each shared message goes to one member only, whichever node it is on; ordinary subscriptions get every message (§4.8.2)', async () => {
    const nodes = cluster!.nodes;
    const [a, b] = await aGroup(nodes[0], 2);
    const members = [await connect5(nodes[0].mqttUrl, a), await connect5(nodes[1].mqttUrl, b)];
    try {
      for (const { client } of members) await client.subscribeAsync({ '$share/sharename/@msg/x': { qos: 2 }, '@msg/TopicA': { qos: 2 } });
      const [gotA, gotB] = members.map(({ client }) => publishesTo(client));
      const publisher = members[1].client;

      const shared = Array.from({ length: 6 }, (_, i) => `message ${i}`);
      for (const body of shared) await publisher.publishAsync('@msg/x', body, { qos: 1 });
      // Then an ordinary message to both: each member has had its share of the shared ones when it comes.
      await publisher.publishAsync('@msg/TopicA', 'last', { qos: 1 });
      await Promise.all([gotA, gotB].map((got) => untilSeen(got, (p) => p.payload.toString() === 'last', 10_000)));

      const sharedGot = [...gotA, ...gotB].filter((p) => p.topic === '@msg/x').map((p) => p.payload.toString()).sort();
      expect(sharedGot, 'each shared message once in the cluster').to.deep.equal(shared);
      expect([gotA, gotB].map((got) => got.filter((p) => p.topic === '@msg/TopicA').length)).to.deep.equal([1, 1]);
    } finally {
      await endAll(...members.map((m) => m.client));
    }
  });
});

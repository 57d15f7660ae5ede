import { expect } from 'chai';
import { backboneEnvOrSkip, Cluster, startCluster } from '../../helpers/cluster';
import { aGroup } from '../../helpers/devices';
import { collect, connectDevice, endAll, sleep } from '../../helpers/mqtt';
import { Stack } from '../../helpers/stack';

/**
 * A node reads the backbone's messages one at a time, on the connection that also brings the acknowledgements of its
 * own relayed messages. A message from another node must not wait there for this node's own deliveries, which wait
 * for those acknowledgements: that was a deadlock until the acknowledgement timeout, which refused the device's
 * publishes (found with the Flow Channel's status notices, issue 22).
 */
describe('MQTT backbone: messages crossing in both directions at once (real Mosquitto)', function () {
  this.timeout(60_000);
  let cluster: Cluster | undefined;
  let a: Stack;
  let b: Stack;
  before(async function () {
    cluster = await startCluster(2, backboneEnvOrSkip(this));
    [a, b] = cluster.nodes;
  });
  after(() => cluster?.stop());

  it('acknowledges every QoS 1 publish of a burst on node A while node B sends to the same group, and delivers all of both', async () => {
    const [onA, onB, listener] = await aGroup(a, 3);
    const senderA = await connectDevice(a.mqttUrl, onA);
    const senderB = await connectDevice(b.mqttUrl, onB);
    const rx = await connectDevice(a.mqttUrl, listener);
    try {
      await rx.subscribeAsync('@msg/#', { qos: 1 });
      const seen = collect(rx);
      const started = Date.now();

      const outcomes = await Promise.all([
        ...Array.from({ length: 100 }, (_, i) => senderA.publishAsync('@msg/a', `a${i}`, { qos: 1 }).then(() => 'acked', () => 'refused')),
        ...Array.from({ length: 300 }, (_, i) => senderB.publishAsync('@msg/b', `b${i}`, { qos: 0 }).then(() => 'sent', () => 'refused')),
      ]);
      const took = Date.now() - started;
      for (const deadline = Date.now() + 5000; seen.length < 400 && Date.now() < deadline; ) await sleep(25);

      expect(outcomes.filter((o) => o === 'refused')).to.deep.equal([]);
      expect(seen.filter((m) => m.topic === '@msg/a')).to.have.length(100);
      expect(seen.filter((m) => m.topic === '@msg/b')).to.have.length(300);
      // The backbone's acknowledgement timeout is seconds: a burst that waited for it would show here.
      expect(took, 'ms for the whole burst').to.be.below(2500);
    } finally {
      await endAll(senderA, senderB, rx);
    }
  });
});

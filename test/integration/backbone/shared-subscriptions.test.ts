import { expect } from 'chai';
import { IPublishPacket } from 'mqtt';
import { backboneEnvOrSkip, Cluster, startCluster } from '../../helpers/cluster';
import { aGroup } from '../../helpers/devices';
import { endAll, sleep } from '../../helpers/mqtt';
import { connect5, Connected5, publishesTo } from '../../helpers/mqtt5';
import { Stack } from '../../helpers/stack';

/** How long a test waits to be sure that nothing more arrives. */
const QUIET_MS = 400;

/** Waits until the members got `count` messages between them (or 10 s passed), then QUIET_MS more for any extra. */
async function settle(received: IPublishPacket[][], count: number): Promise<void> {
  const total = () => received.reduce((sum, got) => sum + got.length, 0);
  for (const deadline = Date.now() + 10_000; total() < count && Date.now() < deadline; ) await sleep(25);
  await sleep(QUIET_MS);
}

const payloads = (got: IPublishPacket[]) => got.map((p) => p.payload.toString());

/** Members of one share, one per node, each subscribed with its QoS. */
async function membersOn(nodes: Stack[], devices: Parameters<typeof connect5>[1][], filter: string, qos: (0 | 1 | 2)[]) {
  const members: Connected5[] = [];
  for (const [i, node] of nodes.entries()) {
    const member = await connect5(node.mqttUrl, devices[i]);
    member.client.on('error', () => undefined);
    members.push(member);
    const [grant] = await member.client.subscribeAsync(filter, { qos: qos[i] });
    expect(grant.qos, `grant of member ${i}`).to.equal(qos[i]);
  }
  return members;
}

describe('MQTT 5 shared subscriptions across nodes (three nodes, real Mosquitto)', function () {
  this.timeout(60_000);
  let cluster: Cluster | undefined;
  let nodes: Stack[];
  before(async function () {
    cluster = await startCluster(3, backboneEnvOrSkip(this));
    nodes = cluster.nodes.slice(0, 3);
  });
  after(() => cluster?.stop());

  it('[MQTT-4.8.2-3] gives each message to exactly one member across the nodes, at that member\'s granted QoS', async () => {
    const [m0, m1, m2, publisher, watcher] = await aGroup(nodes[0], 5);
    const members = await membersOn(nodes, [m0, m1, m2], '$share/workers/@msg/jobs/+', [0, 1, 2]);
    const plain = await connect5(nodes[1].mqttUrl, watcher);
    const tx = await connect5(nodes[0].mqttUrl, publisher);
    try {
      await plain.client.subscribeAsync('@msg/jobs/+', { qos: 1 });
      const received = members.map((m) => publishesTo(m.client));
      const all = publishesTo(plain.client);

      const sent = Array.from({ length: 30 }, (_, i) => `job${i}`);
      for (const [i, body] of sent.entries()) await tx.client.publishAsync(`@msg/jobs/${i}`, body, { qos: 2 });
      await settle(received, sent.length);

      expect(received.flatMap(payloads).sort(), 'each message once in total').to.deep.equal([...sent].sort());
      for (const [i, got] of received.entries()) {
        expect(got, `member on node ${i}`).to.not.be.empty;
        expect(new Set(got.map((p) => p.qos)), `QoS of member on node ${i}`).to.deep.equal(new Set([i]));
      }
      expect(payloads(all).sort(), 'an ordinary subscription still gets every message').to.deep.equal([...sent].sort());
    } finally {
      await endAll(...members.map((m) => m.client), plain.client, tx.client);
    }
  });

  it('a node whose last member left gets no more of the share: the members on the other nodes get every message', async () => {
    const [m0, m1, m2, publisher] = await aGroup(nodes[0], 4);
    const members = await membersOn(nodes, [m0, m1, m2], '$share/pool/@msg/work', [1, 1, 1]);
    const tx = await connect5(nodes[2].mqttUrl, publisher);
    try {
      await members[1].client.unsubscribeAsync('$share/pool/@msg/work');
      const received = members.map((m) => publishesTo(m.client));

      const sent = Array.from({ length: 12 }, (_, i) => `w${i}`);
      for (const body of sent) await tx.client.publishAsync('@msg/work', body, { qos: 1 });
      await settle(received, sent.length);

      expect(received[1], 'the member that left').to.deep.equal([]);
      expect([...payloads(received[0]), ...payloads(received[2])].sort()).to.deep.equal([...sent].sort());
    } finally {
      await endAll(...members.map((m) => m.client), tx.client);
    }
  });

  it('a persistent session that comes back to its node is a member again, and a message reaches it from another node', async () => {
    const [member, publisher] = await aGroup(nodes[0], 2);
    const persistent = { clean: false, properties: { sessionExpiryInterval: 60 } };
    const first = await connect5(nodes[1].mqttUrl, member, persistent);
    await first.client.subscribeAsync('$share/kept/@msg/kept', { qos: 1 });
    await first.client.endAsync();
    const again = await connect5(nodes[1].mqttUrl, member, persistent);
    const tx = await connect5(nodes[0].mqttUrl, publisher);
    try {
      expect(again.connack.sessionPresent).to.equal(true);
      const got = publishesTo(again.client);
      // The restored share joins the backbone once the session is ready, without a SUBACK to wait for.
      await sleep(QUIET_MS);
      await tx.client.publishAsync('@msg/kept', 'still', { qos: 1 });
      await settle([got], 1);
      expect(payloads(got)).to.deep.equal(['still']);
    } finally {
      await endAll(again.client, tx.client);
    }
  });

  it('a member\'s node stopped mid-stream loses none of the share\'s messages: what it had not delivered goes to the other members', async () => {
    // A fourth node of the same cluster, to stop; the suite's three stay up.
    const doomed = await cluster!.addNode();
    const [m0, m1, m2, publisher] = await aGroup(nodes[0], 4);
    const members = await membersOn([nodes[0], nodes[1], doomed], [m0, m1, m2], '$share/stream/@msg/s', [1, 1, 1]);
    const tx = await connect5(nodes[0].mqttUrl, publisher);
    try {
      const received = members.map((m) => publishesTo(m.client));
      const burst = Array.from({ length: 90 }, (_, i) => `b${i}`);
      const later = Array.from({ length: 20 }, (_, i) => `l${i}`);

      // A burst in flight (within the nodes' Receive Maximum of 100), the node stopped once a third of it is
      // acknowledged; then more messages.
      let acknowledged = 0;
      let stopping: Promise<void> | undefined;
      await Promise.all(
        burst.map((body) =>
          tx.client.publishAsync('@msg/s', body, { qos: 1 }).then(() => {
            if (++acknowledged === burst.length / 3) stopping = doomed.stop();
          }),
        ),
      );
      await stopping;
      for (const body of later) await tx.client.publishAsync('@msg/s', body, { qos: 1 });
      await settle(received, burst.length + later.length);

      // The stopping node left the share first, then handed on what the backbone had already sent it; its member
      // keeps what it got before. (A node that dies without stopping loses what the backbone had sent it and it had
      // not acknowledged: docs/mqtt.md "MQTT 5".)
      expect(received.flatMap(payloads).sort(), 'each message once in total').to.deep.equal([...burst, ...later].sort());
      expect(payloads(received[2]).filter((body) => later.includes(body)), 'the stopped node\'s member, after the stop').to.deep.equal([]);
      expect(received[0], 'member on the first node').to.not.be.empty;
      expect(received[1], 'member on the second node').to.not.be.empty;
    } finally {
      await endAll(...members.map((m) => m.client), tx.client);
    }
  });
});

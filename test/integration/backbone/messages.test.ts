import { expect } from 'chai';
import { IPublishPacket, MqttClient } from 'mqtt';
import { backboneEnvOrSkip, Cluster, startCluster } from '../../helpers/cluster';
import { coapAs } from '../../helpers/coap';
import { aDevice, aGroup } from '../../helpers/devices';
import { collect, connectDevice, endAll, nextMessage, sleep } from '../../helpers/mqtt';
import { restPublish } from '../../helpers/mqtt-expect';
import { Stack } from '../../helpers/stack';

/** The next PUBLISH packet `client` receives, with its QoS and retain flags. */
const nextPacket = (client: MqttClient, ms = 3000) =>
  new Promise<IPublishPacket>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no message arrived in time')), ms);
    client.once('message', (_topic, _payload, packet) => {
      clearTimeout(timer);
      resolve(packet);
    });
  });

/** How long a test waits to be sure that something does not arrive. */
const QUIET_MS = 300;

describe('MQTT backbone: messages across two nodes (real Mosquitto)', () => {
  let cluster: Cluster | undefined;
  let a: Stack;
  let b: Stack;
  before(async function () {
    cluster = await startCluster(2, backboneEnvOrSkip(this));
    [a, b] = cluster.nodes;
  });
  after(() => cluster?.stop());

  it('delivers a REST publish on node A to a subscriber of the group on node B, and to no other group', async () => {
    const [publisher, listener] = await aGroup(a, 2);
    const otherGroup = await aDevice(a, { projectid: publisher.projectid });
    const otherProject = await aDevice(a, { groupid: publisher.groupid });
    const clients = await Promise.all([listener, otherGroup, otherProject].map((d) => connectDevice(b.mqttUrl, d)));
    const [rx, g, p] = clients;
    try {
      await Promise.all(clients.map((c) => c.subscribeAsync('@msg/#')));
      const [seenByOtherGroup, seenByOtherProject] = [collect(g), collect(p)];
      const arrived = nextMessage(rx);

      await restPublish(a, publisher, 'lamp/state', 'on');

      expect(await arrived).to.deep.equal({ topic: '@msg/lamp/state', payload: 'on' });
      await sleep(QUIET_MS);
      expect(seenByOtherGroup, 'other group').to.deep.equal([]);
      expect(seenByOtherProject, 'other project').to.deep.equal([]);
    } finally {
      await endAll(...clients);
    }
  });

  it('delivers a CoAP publish on node A to a subscriber of the group on node B', async () => {
    const [publisher, listener] = await aGroup(a, 2);
    const rx = await connectDevice(b.mqttUrl, listener);
    try {
      await rx.subscribeAsync('@msg/#');
      const arrived = nextMessage(rx);

      const res = await coapAs(a.coapUrl, publisher)('PUT', '/message/home/lamp', { payload: 'ON' });

      expect(res.code, res.text).to.equal('2.04');
      expect(await arrived).to.deep.equal({ topic: '@msg/home/lamp', payload: 'ON' });
    } finally {
      await endAll(rx);
    }
  });

  it('delivers an MQTT publish of a device on node A to its group on node B, at the QoS it asked for', async () => {
    const [publisher, listener] = await aGroup(a, 2);
    const stranger = await aDevice(a, { projectid: publisher.projectid });
    const tx = await connectDevice(a.mqttUrl, publisher);
    const [rx, other] = [await connectDevice(b.mqttUrl, listener), await connectDevice(b.mqttUrl, stranger)];
    try {
      await rx.subscribeAsync('@msg/sensor/#', { qos: 1 });
      await other.subscribeAsync('@msg/#', { qos: 1 });
      const seenByStranger = collect(other);

      const atLeastOnce = nextPacket(rx);
      await tx.publishAsync('@msg/sensor/t', '21.5', { qos: 1 });
      const first = await atLeastOnce;
      const atMostOnce = nextPacket(rx);
      await tx.publishAsync('@msg/sensor/h', '40', { qos: 0 });
      const second = await atMostOnce;

      expect([first.topic, first.payload.toString(), first.qos]).to.deep.equal(['@msg/sensor/t', '21.5', 1]);
      expect([second.topic, second.payload.toString(), second.qos]).to.deep.equal(['@msg/sensor/h', '40', 0]);
      await sleep(QUIET_MS);
      expect(seenByStranger).to.deep.equal([]);
    } finally {
      await endAll(tx, rx, other);
    }
  });

  it('delivers each message once on every node, the publisher\'s own included (no echo from the backbone)', async () => {
    const [publisher, here, there] = await aGroup(a, 3);
    const tx = await connectDevice(a.mqttUrl, publisher);
    const [rxA, rxB] = [await connectDevice(a.mqttUrl, here), await connectDevice(b.mqttUrl, there)];
    try {
      await Promise.all([rxA, rxB].map((c) => c.subscribeAsync('@msg/once')));
      const [seenOnA, seenOnB] = [collect(rxA), collect(rxB)];

      await tx.publishAsync('@msg/once', 'mqtt', { qos: 1 });
      await restPublish(a, publisher, 'once', 'rest');
      await sleep(QUIET_MS);

      for (const seen of [seenOnA, seenOnB]) {
        expect(seen.map((m) => m.payload).sort()).to.deep.equal(['mqtt', 'rest']);
      }
    } finally {
      await endAll(tx, rxA, rxB);
    }
  });

  it('delivers a private message sent over REST on node A to its device connected to node B, and to no other device', async () => {
    const [recipient, mateA, mateB] = await aGroup(a, 3);
    const rx = await connectDevice(b.mqttUrl, recipient);
    const [mateOnA, mateOnB] = [await connectDevice(a.mqttUrl, mateA), await connectDevice(b.mqttUrl, mateB)];
    try {
      await rx.subscribeAsync('@private/#');
      await Promise.all([mateOnA, mateOnB].map((c) => c.subscribeAsync(['@private/#', '@msg/#'])));
      const seenByMates = [collect(mateOnA), collect(mateOnB)];
      const arrived = nextMessage(rx);

      const res = await a.http('PUT', '/v2/device/private/cmd/reboot', { body: 'now', headers: { authorization: recipient.auth } });

      expect(res.status).to.equal(200);
      expect(await arrived).to.deep.equal({ topic: '@private/cmd/reboot', payload: 'now' });
      await sleep(QUIET_MS);
      expect(seenByMates).to.deep.equal([[], []]);
    } finally {
      await endAll(rx, mateOnA, mateOnB);
    }
  });

  it('keeps a retained message published on node A for a later subscriber of the group on node B', async () => {
    const [publisher, subscriber] = await aGroup(a, 2);
    const stranger = await aDevice(a, { projectid: publisher.projectid });
    const tx = await connectDevice(a.mqttUrl, publisher);
    const clients: MqttClient[] = [tx];
    try {
      await tx.publishAsync('@msg/r/state', 'on', { qos: 1, retain: true });
      await sleep(QUIET_MS);
      const [rx, other] = [await connectDevice(b.mqttUrl, subscriber), await connectDevice(b.mqttUrl, stranger)];
      clients.push(rx, other);
      const seenByStranger = collect(other);
      const arrived = nextPacket(rx);

      await Promise.all([rx, other].map((c) => c.subscribeAsync('@msg/r/#')));

      const packet = await arrived;
      expect([packet.topic, packet.payload.toString(), packet.retain]).to.deep.equal(['@msg/r/state', 'on', true]);
      await sleep(QUIET_MS);
      expect(seenByStranger).to.deep.equal([]);
    } finally {
      // An empty retained message clears it on every node and on the backbone.
      await tx.publishAsync('@msg/r/state', '', { qos: 1, retain: true });
      await endAll(...clients);
    }
  });
});

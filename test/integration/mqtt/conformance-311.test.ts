import { expect } from 'chai';
import { IPublishPacket } from 'mqtt';
import { aDevice, aGroup } from '../../helpers/devices';
import { connectDevice, endAll } from '../../helpers/mqtt';
import { connackOf } from '../../helpers/mqtt-raw';
import { wireSession } from '../../helpers/mqtt-wire';
import { startStack, Stack } from '../../helpers/stack';

/** CONNACK 2, "identifier rejected" [MQTT-3.2.2-3]. */
const IDENTIFIER_REJECTED = 2;

/** MQTT 3.1.1 normative statements an interoperability suite found broken, each named by its statement id. */
describe('MQTT 3.1.1 conformance', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  for (const filter of ['@msg/conf/qos', '@msg/conf/+', '@msg/#']) {
    it(`[MQTT-3.8.4-6] [MQTT-3.3.5-1] delivers a QoS 2 publish at QoS 1 to a QoS 1 subscription (${filter})`, async () => {
      const [publisher, subscriber] = await aGroup(stack, 2);
      const [tx, rx] = [await connectDevice(stack.mqttUrl, publisher), await connectDevice(stack.mqttUrl, subscriber)];
      try {
        await rx.subscribeAsync(filter, { qos: 1 });
        const arrived = new Promise<IPublishPacket>((resolve) => rx.once('message', (_t, _p, packet) => resolve(packet)));

        await tx.publishAsync('@msg/conf/qos', 'downgraded', { qos: 2 });

        const packet = await arrived;
        expect([packet.topic, packet.payload.toString(), packet.qos]).to.deep.equal(['@msg/conf/qos', 'downgraded', 1]);
      } finally {
        await endAll(tx, rx);
      }
    });
  }

  it('[MQTT-3.3.5-1] delivers at the highest QoS of overlapping subscriptions, capped by the publish', async () => {
    const [publisher, subscriber] = await aGroup(stack, 2);
    const [tx, rx] = [await connectDevice(stack.mqttUrl, publisher), await connectDevice(stack.mqttUrl, subscriber)];
    try {
      await rx.subscribeAsync({ '@msg/conf/#': { qos: 1 }, '@msg/conf/both': { qos: 2 } });
      const packets: IPublishPacket[] = [];
      rx.on('message', (_t, _p, packet) => packets.push(packet));

      await tx.publishAsync('@msg/conf/both', 'q2', { qos: 2 });
      await new Promise((r) => setTimeout(r, 300));

      expect(packets.map((p) => p.qos)).to.include(2);
      expect(packets.every((p) => p.qos <= 2)).to.equal(true);
    } finally {
      await endAll(tx, rx);
    }
  });

  it('[MQTT-3.1.3-8] answers an empty ClientID with CleanSession 0 with CONNACK 2, identifier rejected', async () => {
    const device = await aDevice(stack);

    const connack = await connackOf(stack.server.mqttPort, { clientId: '', token: device.token, clean: false });

    expect(connack).to.deep.equal({ sessionPresent: false, returnCode: IDENTIFIER_REJECTED });
  });

  it('[MQTT-3.1.3-6] accepts an empty ClientID with CleanSession 1 with CONNACK 0: the token names the device (issue 17)', async () => {
    const device = await aDevice(stack);

    const connack = await connackOf(stack.server.mqttPort, { clientId: '', token: device.token, clean: true });

    expect(connack).to.deep.equal({ sessionPresent: false, returnCode: 0 });
  });

  it('[MQTT-3.2.2-2] answers session present 1 to a session that holds only an unfinished incoming QoS 2 exchange', async () => {
    const device = await aDevice(stack);
    const first = wireSession(stack.server.mqttPort, 4);
    first.send({ cmd: 'connect', protocolId: 'MQTT', protocolVersion: 4, clientId: device.deviceid, username: device.token, clean: false, keepalive: 60 });
    expect((await first.next('connack')).returnCode).to.equal(0);
    // PUBLISH at QoS 2 and PUBREC back, but no PUBREL: the exchange stays open in the session [MQTT-4.3.3].
    first.send({ cmd: 'publish', topic: '@msg/conf/half', payload: Buffer.from('half'), qos: 2, messageId: 7, retain: false, dup: false });
    expect((await first.next('pubrec')).messageId).to.equal(7);
    first.destroy();
    await first.closed;

    const connack = await connackOf(stack.server.mqttPort, { clientId: device.deviceid, token: device.token, clean: false });

    expect(connack).to.deep.equal({ sessionPresent: true, returnCode: 0 });
  });
});

import { expect } from 'chai';
import { aDevice, aGroup, TestDevice } from '../../helpers/devices';
import { connectDevice, endAll, nextMessage } from '../../helpers/mqtt';
import { restPublish } from '../../helpers/mqtt-expect';
import { connackOf } from '../../helpers/mqtt-raw';
import { connackOf5 } from '../../helpers/mqtt5';
import { wireSession } from '../../helpers/mqtt-wire';
import { startStack, Stack } from '../../helpers/stack';

/**
 * The three security fixes of aedes 1.1.3/1.2.0 that aedes 2.0.0-beta.1 lacks, made again in the broker's patch layer
 * (src/mqtt/v5/inbound.ts, incoming-state.ts, aedes-patches.ts), for MQTT 3.1.1 and MQTT 5 alike.
 */
describe('aedes 1.2.0 security fixes, kept on aedes 2', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  /** The broker still serves devices: a REST message reaches a fresh subscriber. */
  async function expectServing() {
    const [listener, publisher] = await aGroup(stack, 2);
    const client = await connectDevice(stack.mqttUrl, listener);
    try {
      await client.subscribeAsync('@msg/alive');
      const arrived = nextMessage(client);
      await restPublish(stack, publisher, 'alive', 'yes');
      expect((await arrived).payload).to.equal('yes');
    } finally {
      await endAll(client);
    }
  }

  async function wired(device: TestDevice, version: 4 | 5, clean = true) {
    const wire = wireSession(stack.server.mqttPort, version);
    wire.send({ cmd: 'connect', protocolVersion: version, clientId: device.deviceid, username: device.token, clean, keepalive: 60 });
    const connack = await wire.next('connack');
    expect(version === 5 ? connack.reasonCode : connack.returnCode).to.equal(0);
    return wire;
  }

  const qos2 = (from: number, count: number, payload = 'x') =>
    Array.from({ length: count }, (_, i) => ({
      cmd: 'publish' as const, topic: '@msg/q2', payload: Buffer.from(payload), qos: 2 as const, messageId: from + i, retain: false, dup: false,
    }));

  describe('GHSA-5jvp-3p2v-5qgf: a cap on a client\'s QoS 2 publishes waiting for PUBREL (100)', () => {
    it('MQTT 3.1.1: the 101st open exchange closes the connection, and the broker serves on', async () => {
      const device = await aDevice(stack);
      const wire = await wired(device, 4);
      try {
        wire.sendAll(qos2(1, 100));
        for (let id = 1; id <= 100; id++) await wire.next('pubrec', (p) => p.messageId === id);
        wire.send(qos2(101, 1)[0]);
        await wire.closed;
        expect(wire.received.filter((p) => p.cmd === 'pubrec' && p.messageId === 101)).to.deep.equal([]);
      } finally {
        wire.destroy();
      }
      await expectServing();
    });

    it('MQTT 3.1.1: a resent PUBLISH of an open exchange takes no second slot', async () => {
      const device = await aDevice(stack);
      const wire = await wired(device, 4);
      try {
        wire.sendAll([...qos2(1, 100), { ...qos2(1, 1)[0], dup: true }]);
        for (let id = 1; id <= 100; id++) await wire.next('pubrec', (p) => p.messageId === id);
        await wire.next('pubrec', (p) => p.messageId === 1);
        expect(wire.isClosed()).to.equal(false);
      } finally {
        wire.destroy();
      }
    });
  });

  describe('GHSA-52qw-whmv-87c5: ClientIDs and filters named like prototype members cannot touch the broker\'s tables', () => {
    for (const name of ['__proto__', 'constructor', 'hasOwnProperty']) {
      it(`a ClientID "${name}" is refused (MQTT 3.1.1: 5, MQTT 5: 0x85), and the broker serves on`, async () => {
        const device = await aDevice(stack);
        expect(await connackOf(stack.server.mqttPort, { clientId: name, token: device.token })).to.deep.equal({ sessionPresent: false, returnCode: 5 });
        expect((await connackOf5(stack.mqttUrl, { clientId: name, username: device.token })).reasonCode).to.equal(0x85);
        await expectServing();
      });
    }

    it('MQTT 3.1.1: SUBSCRIBE "__proto__" beside a valid filter gets 0x80 for it and a grant for the other; UNSUBSCRIBE "__proto__" is answered', async () => {
      const device = await aDevice(stack);
      const wire = await wired(device, 4);
      try {
        wire.send({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: '__proto__', qos: 0 }, { topic: '@msg/ok', qos: 1 }, { topic: 'constructor', qos: 0 }] });
        expect((await wire.next('suback')).granted).to.deep.equal([0x80, 1, 0x80]);
        wire.send({ cmd: 'unsubscribe', messageId: 2, unsubscriptions: ['__proto__', 'constructor'] });
        await wire.next('unsuback');
        wire.send({ cmd: 'pingreq' });
        await wire.next('pingresp');
      } finally {
        wire.destroy();
      }
      await expectServing();
    });

    it('MQTT 5: the same SUBSCRIBE gets 0x87 for the prototype names, UNSUBSCRIBE says no subscription existed (0x11)', async () => {
      const device = await aDevice(stack);
      const wire = await wired(device, 5);
      try {
        wire.send({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: '__proto__', qos: 0 }, { topic: '@msg/ok', qos: 1 }] });
        expect((await wire.next('suback')).granted).to.deep.equal([0x87, 1]);
        wire.send({ cmd: 'unsubscribe', messageId: 2, unsubscriptions: ['__proto__'] });
        expect((await wire.next('unsuback')).granted).to.deep.equal([0x11]);
      } finally {
        wire.destroy();
      }
      await expectServing();
    });
  });

  describe('GHSA-p8r9-qf8w-p73r: a clean CONNECT drops the inbound QoS 2 state of the old session', () => {
    for (const version of [4, 5] as const) {
      it(`MQTT ${version === 4 ? '3.1.1' : '5'}: a QoS 2 publish reusing the packet id of an exchange the old connection left open is delivered`, async () => {
        const [device, listener] = await aGroup(stack, 2);
        const rx = await connectDevice(stack.mqttUrl, listener);
        try {
          await rx.subscribeAsync('@msg/q2', { qos: 2 });
          const first = await wired(device, version);
          // aedes 2 delivers a QoS 2 message when it takes the PUBLISH; the listener has it once its PUBREL came.
          const delivered = nextMessage(rx, (t) => t === '@msg/q2');
          first.send(qos2(7, 1, 'first')[0]);
          await first.next('pubrec');
          await delivered;
          first.destroy(); // no PUBREL: the exchange stays open in the broker's store

          const second = await wired(device, version);
          const arrived = nextMessage(rx, (t) => t === '@msg/q2');
          const seen: string[] = [];
          rx.on('message', (_t, p) => seen.push(p.toString()));
          second.send(qos2(7, 1, 'second')[0]);
          await second.next('pubrec');
          second.send({ cmd: 'pubrel', messageId: 7 });
          await second.next('pubcomp');
          await arrived;
          expect(seen).to.include('second');
          second.destroy();
        } finally {
          await endAll(rx);
        }
      });
    }
  });
});

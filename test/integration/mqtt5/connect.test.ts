import { expect } from 'chai';
import { aDevice, aGroup, TestDevice } from '../../helpers/devices';
import { endAll, nextMessage } from '../../helpers/mqtt';
import { restPublish } from '../../helpers/mqtt-expect';
import { connackOf5, connect5, disconnectOf, v5 } from '../../helpers/mqtt5';
import { wireSession } from '../../helpers/mqtt-wire';
import { startStack, Stack } from '../../helpers/stack';
import { aSelfSignedCertificate, TestCertificate } from '../../helpers/tls';

/** MQTT 5 reason codes (MQTT 5.0 §2.4). */
const RC = { CLIENT_ID_NOT_VALID: 0x85, BAD_CREDENTIALS: 0x86, NOT_AUTHORIZED: 0x87, BANNED: 0x8a, TAKEN_OVER: 0x8e, ADMIN: 0x98, QUOTA: 0x97 };

describe('MQTT 5: CONNECT and CONNACK', () => {
  let certificate: TestCertificate;
  let stack: Stack;
  before(async () => {
    certificate = await aSelfSignedCertificate();
    stack = await startStack({ env: certificate.env });
  });
  after(async () => {
    await stack.stop();
    certificate.remove();
  });

  describe('is served on every listener, with the same credentials, topics and ACL', () => {
    const listeners: [string, (s: Stack) => string][] = [
      ['TCP', (s) => s.mqttUrl],
      ['TLS', (s) => `mqtts://127.0.0.1:${s.server.mqttsPort}`],
      ['WebSocket', (s) => s.mqttWsUrl],
      ['WebSocket over TLS', (s) => `wss://127.0.0.1:${s.server.httpsPort}/mqtt`],
    ];
    for (const [name, urlOf] of listeners) {
      it(`${name}: [MQTT-3.1.4-5] CONNACK 0x00, then a REST message reaches the subscription`, async () => {
        const [device, publisher] = await aGroup(stack, 2);
        const { client, connack } = await connect5(urlOf(stack), device, { ca: certificate.cert });
        try {
          expect(connack.reasonCode).to.equal(0);
          await client.subscribeAsync('@msg/listener');
          const arrived = nextMessage(client);
          await restPublish(stack, publisher, 'listener', name);
          expect(await arrived).to.deep.equal({ topic: '@msg/listener', payload: name });
        } finally {
          await endAll(client);
        }
      });
    }
  });

  it('advertises the broker\'s limits in CONNACK (§3.2.2.3): Receive Maximum, Maximum Packet Size, Topic Alias Maximum', async () => {
    const device = await aDevice(stack);

    const connack = await connackOf5(stack.mqttUrl, v5(device));

    expect(connack.reasonCode).to.equal(0);
    expect(connack.properties).to.include({ receiveMaximum: 100, maximumPacketSize: 294912, topicAliasMaximum: 64 });
  });

  describe('refusals carry a reason code and a Reason String, with Session Present 0 [MQTT-3.2.2-6], and close the connection [MQTT-3.2.2-7]', () => {
    const expectRefusal = async (device: TestDevice | undefined, options: object, reasonCode: number, why: RegExp) => {
      const connack = await connackOf5(stack.mqttUrl, { ...(device ? v5(device) : {}), ...options });
      expect(connack.reasonCode, connack.properties?.reasonString).to.equal(reasonCode);
      expect(connack.sessionPresent).to.equal(false);
      expect(connack.properties?.reasonString).to.match(why);
    };

    it('[MQTT-3.2.2-7] [MQTT-3.1.4-6] the broker closes the connection after a refusing CONNACK and reads nothing more', async () => {
      const device = await aDevice(stack);
      const wire = wireSession(stack.server.mqttPort, 5);
      try {
        wire.send({ cmd: 'connect', protocolVersion: 5, clientId: device.deviceid, username: 'wrong', clean: true, keepalive: 60 });
        wire.send({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: '@msg/#', qos: 0 }] });
        const connack = await wire.next('connack');
        await wire.closed;
        expect(connack).to.include({ reasonCode: RC.BAD_CREDENTIALS, sessionPresent: false });
        expect(wire.received.map((p) => p.cmd)).to.deep.equal(['connack']);
      } finally {
        wire.destroy();
      }
    });

    it('[MQTT-3.2.2-19] the Reason String is left out when it would exceed the client\'s Maximum Packet Size', async () => {
      const device = await aDevice(stack);
      const connack = await connackOf5(stack.mqttUrl, v5(device, { username: 'wrong', properties: { maximumPacketSize: 20 } }));
      expect(connack.reasonCode).to.equal(RC.BAD_CREDENTIALS);
      expect(connack.properties?.reasonString).to.equal(undefined);
    });

    it('[MQTT-3.1.3-6] [MQTT-3.2.2-16] an empty ClientID is not refused: 0x00, the device id as Assigned Client Identifier (issue 17)', async () => {
      const device = await aDevice(stack);
      const connack = await connackOf5(stack.mqttUrl, v5(device, { clientId: '' }));
      expect(connack.reasonCode).to.equal(0);
      expect(connack.properties?.assignedClientIdentifier).to.equal(device.deviceid);
    });

    it('[MQTT-3.1.3-8] a ClientID that is not a device id: 0x85', async () => {
      const device = await aDevice(stack);
      await expectRefusal(device, { clientId: 'my-sensor' }, RC.CLIENT_ID_NOT_VALID, /must be a device id/);
    });

    it('[MQTT-3.2.2-8] an unknown device id or a wrong token: 0x86, Bad User Name or Password (one answer for both)', async () => {
      const device = await aDevice(stack);
      await expectRefusal(device, { username: 'wrong-token' }, RC.BAD_CREDENTIALS, /unknown device or wrong token/);
      await expectRefusal(device, { clientId: '00000000-0000-4000-8000-000000000000' }, RC.BAD_CREDENTIALS, /unknown device or wrong token/);
    });

    it('[MQTT-3.2.2-8] a wrong secret: 0x86', async () => {
      const device = await aDevice(stack);
      await expectRefusal(device, { password: 'not-the-secret' }, RC.BAD_CREDENTIALS, /wrong secret/);
    });

    it('[MQTT-3.2.2-8] a disabled device: 0x87, Not authorized', async () => {
      const device = await aDevice(stack);
      await stack.admin('PATCH', `/v2/admin/devices/${device.deviceid}`, { body: { enabled: false } });
      await expectRefusal(device, {}, RC.NOT_AUTHORIZED, /disabled/);
    });

    it('[MQTT-3.2.2-8] a banned device: 0x8A, Banned', async () => {
      const device = await aDevice(stack);
      await stack.admin('PATCH', `/v2/admin/devices/${device.deviceid}`, { body: { banned: true } });
      await expectRefusal(device, {}, RC.BANNED, /banned/);
    });

    it('[MQTT-3.2.2-8] a project whose messages quota is spent: 0x97, Quota exceeded', async () => {
      const device = await aDevice(stack);
      await stack.admin('PUT', `/v2/admin/projects/${device.projectid}/quotas`, { body: { messages: 1 } });
      const first = await connect5(stack.mqttUrl, device);
      await endAll(first.client);
      await expectRefusal(device, {}, RC.QUOTA, /quota/);
    });
  });

  it('[MQTT-3.1.4-3] a second connection with the same ClientID takes over: the first gets DISCONNECT 0x8E', async () => {
    const device = await aDevice(stack);
    const first = await connect5(stack.mqttUrl, device);
    const told = disconnectOf(first.client);
    const second = await connect5(stack.mqttUrl, device);
    try {
      expect((await told).reasonCode).to.equal(RC.TAKEN_OVER);
      expect(second.client.connected).to.equal(true);
    } finally {
      await endAll(first.client, second.client);
    }
  });

  it('[MQTT-3.14.2-1] disabling a connected device sends DISCONNECT 0x98, Administrative action, with the reason', async () => {
    const device = await aDevice(stack);
    const { client } = await connect5(stack.mqttUrl, device);
    try {
      const told = disconnectOf(client);
      await stack.admin('PATCH', `/v2/admin/devices/${device.deviceid}`, { body: { enabled: false } });
      const disconnect = await told;
      expect(disconnect.reasonCode).to.equal(RC.ADMIN);
      expect(disconnect.properties?.reasonString).to.equal('device disabled');
    } finally {
      await endAll(client);
    }
  });

  describe('Server Keep Alive', () => {
    it('[MQTT-3.2.2-21] a client asking for no keep alive is given 600 s in CONNACK', async () => {
      const device = await aDevice(stack);
      const connack = await connackOf5(stack.mqttUrl, v5(device, { keepalive: 0 }));
      expect(connack.properties?.serverKeepAlive).to.equal(600);
    });

    it('[MQTT-3.2.2-21] a client asking for more than 600 s is given 600 s', async () => {
      const device = await aDevice(stack);
      const connack = await connackOf5(stack.mqttUrl, v5(device, { keepalive: 3600 }));
      expect(connack.properties?.serverKeepAlive).to.equal(600);
    });

    it('[MQTT-3.2.2-22] a client asking for 60 s keeps it: no Server Keep Alive is sent', async () => {
      const device = await aDevice(stack);
      const connack = await connackOf5(stack.mqttUrl, v5(device, { keepalive: 60 }));
      expect(connack.properties?.serverKeepAlive).to.equal(undefined);
    });
  });
});

import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { aDevice, aGroup, TestDevice } from '../../helpers/devices';
import { connectDevice, endAll, nextMessage } from '../../helpers/mqtt';
import { refusalOf } from '../../helpers/mqtt-expect';
import { startStack, Stack } from '../../helpers/stack';

/** CONNACK return code 5, "not authorized" [MQTT-3.2.2-3]. */
const NOT_AUTHORIZED = 5;

describe('MQTT CONNECT', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  const credentialsOf = (d: TestDevice) => ({ clientId: d.deviceid, username: d.token });

  describe('accepts a device', () => {
    it('with ClientID = deviceid, username = token and an empty password', async () => {
      const device = await aDevice(stack);
      const client = await connectDevice(stack.mqttUrl, device, { password: '' });
      try {
        expect(client.connected).to.equal(true);
      } finally {
        await endAll(client);
      }
    });

    it('with its secret as password', async () => {
      const device = await aDevice(stack);
      const client = await connectDevice(stack.mqttUrl, device, { password: device.secret });
      try {
        expect(client.connected).to.equal(true);
      } finally {
        await endAll(client);
      }
    });

    it('that sends no password field at all', async () => {
      const device = await aDevice(stack);
      const client = await connectDevice(stack.mqttUrl, device, { password: undefined });
      try {
        expect(client.connected).to.equal(true);
      } finally {
        await endAll(client);
      }
    });
    it('that was disabled and is enabled again', async () => {
      const device = await aDevice(stack);
      await stack.admin('PATCH', `/v2/admin/devices/${device.deviceid}`, { body: { enabled: false } });
      expect((await refusalOf(stack.mqttUrl, credentialsOf(device))).code).to.equal(NOT_AUTHORIZED);

      await stack.admin('PATCH', `/v2/admin/devices/${device.deviceid}`, { body: { enabled: true } });
      const client = await connectDevice(stack.mqttUrl, device);

      try {
        expect(client.connected).to.equal(true);
      } finally {
        await endAll(client);
      }
    });
  });

  describe('refuses with return code 5', () => {
    it('a wrong token', async () => {
      const device = await aDevice(stack);
      const err = await refusalOf(stack.mqttUrl, { ...credentialsOf(device), username: device.token + 'x' });
      expect(err.code).to.equal(NOT_AUTHORIZED);
    });

    it('the token of another device', async () => {
      const [device, other] = await aGroup(stack, 2);
      const err = await refusalOf(stack.mqttUrl, { clientId: device.deviceid, username: other.token });
      expect(err.code).to.equal(NOT_AUTHORIZED);
    });

    it('an unknown ClientID', async () => {
      const device = await aDevice(stack);
      const err = await refusalOf(stack.mqttUrl, { clientId: randomUUID(), username: device.token });
      expect(err.code).to.equal(NOT_AUTHORIZED);
    });

    it('no username', async () => {
      const device = await aDevice(stack);
      const err = await refusalOf(stack.mqttUrl, { clientId: device.deviceid });
      expect(err.code).to.equal(NOT_AUTHORIZED);
    });

    it('a wrong non-empty password', async () => {
      const device = await aDevice(stack);
      const err = await refusalOf(stack.mqttUrl, { ...credentialsOf(device), password: device.secret + 'x' });
      expect(err.code).to.equal(NOT_AUTHORIZED);
    });

    it('a disabled device, with its right token', async () => {
      const device = await aDevice(stack);
      const res = await stack.admin('PATCH', `/v2/admin/devices/${device.deviceid}`, { body: { enabled: false } });
      expect(res.status).to.equal(200);

      const err = await refusalOf(stack.mqttUrl, credentialsOf(device));

      expect(err.code).to.equal(NOT_AUTHORIZED);
    });

    it('a banned device, with its right token', async () => {
      const device = await aDevice(stack);
      const res = await stack.admin('PATCH', `/v2/admin/devices/${device.deviceid}`, { body: { banned: true } });
      expect(res.status).to.equal(200);

      const err = await refusalOf(stack.mqttUrl, credentialsOf(device));

      expect(err.code).to.equal(NOT_AUTHORIZED);
    });
  });

  describe('with MQTT 5 (protocolVersion 5)', () => {
    it('lets two devices of a group connect and exchange @msg', async () => {
      const [sender, receiver] = await aGroup(stack, 2);
      const rx = await connectDevice(stack.mqttUrl, receiver, { protocolVersion: 5 }).catch((err) => {
        throw new Error(`MQTT 5 CONNECT refused: ${err.message} (code ${err.code})`);
      });
      const tx = await connectDevice(stack.mqttUrl, sender, { protocolVersion: 5 }).catch(async (err) => {
        await endAll(rx);
        throw new Error(`MQTT 5 CONNECT refused: ${err.message} (code ${err.code})`);
      });
      try {
        await rx.subscribeAsync('@msg/v5/#');
        const arrived = nextMessage(rx);

        await tx.publishAsync('@msg/v5/hello', 'from v5');

        expect(await arrived).to.deep.equal({ topic: '@msg/v5/hello', payload: 'from v5' });
      } finally {
        await endAll(rx, tx);
      }
    });

    it('refuses a wrong token with reason code 0x87 or 5', async () => {
      const device = await aDevice(stack);
      const err = await refusalOf(stack.mqttUrl, { ...credentialsOf(device), username: 'nope', protocolVersion: 5 });
      // MQTT 5 spells "not authorized" 0x87 [MQTT-3.2.2.2]; a 3.1.1-style 5 is what NETPIE clients also accept.
      expect(err.code).to.be.oneOf([0x87, NOT_AUTHORIZED]);
    });
  });
});

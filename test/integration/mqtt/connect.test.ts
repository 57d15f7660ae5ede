import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { aDevice, aGroup, TestDevice } from '../../helpers/devices';
import { connectDevice, endAll } from '../../helpers/mqtt';
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

  // MQTT 3.1 (protocol name MQIsdp) capped ClientIDs at 23 bytes; a broker may accept longer ones, and must here
  // because a deviceid is a 36-character UUID.
  describe('with MQTT 3.1 (protocolVersion 3)', () => {
    it('lets a device connect with its 36-character deviceid as ClientID', async () => {
      const device = await aDevice(stack);
      const client = await connectDevice(stack.mqttUrl, device, { protocolId: 'MQIsdp', protocolVersion: 3 }).catch((err) => {
        throw new Error(`MQTT 3.1 CONNECT refused: ${err.message} (code ${err.code})`);
      });
      try {
        expect(client.connected).to.equal(true);
      } finally {
        await endAll(client);
      }
    });
  });

  // MQTT 5 in depth: test/integration/mqtt5.
  describe('with MQTT 5 (protocolVersion 5)', () => {
    it('lets a device connect with the same credentials', async () => {
      const device = await aDevice(stack);
      const client = await connectDevice(stack.mqttUrl, device, { protocolVersion: 5 });
      try {
        expect(client.connected).to.equal(true);
      } finally {
        await endAll(client);
      }
    });
  });
});

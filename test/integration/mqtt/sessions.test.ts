import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import mqtt, { IConnackPacket, MqttClient } from 'mqtt';
import { aDevice, aGroup, TestDevice } from '../../helpers/devices';
import { collect, connectDevice, endAll, nextMessage, sleep } from '../../helpers/mqtt';
import { closeOf, refusalOf, restPublish } from '../../helpers/mqtt-expect';
import { startStack, Stack } from '../../helpers/stack';

const NOT_AUTHORIZED = 5;

describe('MQTT sessions', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  const patch = async (device: TestDevice, body: object) => {
    const res = await stack.admin('PATCH', `/v2/admin/devices/${device.deviceid}`, { body });
    expect(res.status, res.text).to.equal(200);
  };

  describe('a second connection with the same ClientID', () => {
    it('closes the first and is served itself', async () => {
      const [device, publisher] = await aGroup(stack, 2);
      const first = await connectDevice(stack.mqttUrl, device);
      const firstClosed = closeOf(first);
      let second: MqttClient | undefined;
      try {
        second = await connectDevice(stack.mqttUrl, device);
        await firstClosed;

        await second.subscribeAsync('@msg/after-takeover');
        const arrived = nextMessage(second);
        await restPublish(stack, publisher, 'after-takeover', 'still here');

        expect(await arrived).to.deep.equal({ topic: '@msg/after-takeover', payload: 'still here' });
      } finally {
        await endAll(first, second);
      }
    });
  });

  describe('a persistent session (clean session off)', () => {
    it('keeps its subscriptions across a reconnect', async () => {
      const [device, publisher] = await aGroup(stack, 2);
      const first = await connectDevice(stack.mqttUrl, device, { clean: false });
      await first.subscribeAsync('@msg/kept', { qos: 1 });
      await first.endAsync();
      const back = await connectDevice(stack.mqttUrl, device, { clean: false });
      try {
        const arrived = nextMessage(back);

        await restPublish(stack, publisher, 'kept', 'no need to subscribe again');

        expect(await arrived).to.deep.equal({ topic: '@msg/kept', payload: 'no need to subscribe again' });
      } finally {
        await endAll(back);
      }
    });

    it('gets the QoS 1 messages published while it was offline', async () => {
      const [device, publisher] = await aGroup(stack, 2);
      const first = await connectDevice(stack.mqttUrl, device, { clean: false });
      await first.subscribeAsync('@msg/offline', { qos: 1 });
      await first.endAsync();
      const tx = await connectDevice(stack.mqttUrl, publisher);
      // Built now, connected later: listening from the first byte, as the queued message may follow CONNACK at once.
      const back = mqtt.connect(stack.mqttUrl, {
        clientId: device.deviceid,
        username: device.token,
        clean: false,
        reconnectPeriod: 0,
        manualConnect: true,
      });
      try {
        await tx.publishAsync('@msg/offline', 'while you were away', { qos: 1 });
        const arrived = nextMessage(back);

        const connected = new Promise<IConnackPacket>((resolve) => back.once('connect', resolve));
        back.connect();

        const connack = await connected;
        expect(connack.sessionPresent, 'session present').to.equal(true);
        expect(await arrived).to.deep.equal({ topic: '@msg/offline', payload: 'while you were away' });
      } finally {
        await endAll(tx, back);
      }
    });
  });

  describe('an admin change closes the live session at once', () => {
    const cases: [string, (d: TestDevice) => Promise<unknown>][] = [
      ['disabling the device', (d) => patch(d, { enabled: false })],
      ['banning the device', (d) => patch(d, { banned: true })],
      ['deleting the device', (d) => stack.admin('DELETE', `/v2/admin/devices/${d.deviceid}`)],
      ['rotating its token', (d) => stack.admin('POST', `/v2/admin/devices/${d.deviceid}/token`)],
      ['moving it to another group', (d) => patch(d, { groupid: 'g-' + randomUUID().slice(0, 8) })],
    ];
    for (const [change, act] of cases) {
      it(change, async () => {
        const device = await aDevice(stack);
        const client = await connectDevice(stack.mqttUrl, device);
        try {
          const closed = closeOf(client, 1000);

          await act(device);

          await closed;
        } finally {
          await endAll(client);
        }
      });
    }

    it('but a change of description or alias leaves it open', async () => {
      const device = await aDevice(stack);
      const client = await connectDevice(stack.mqttUrl, device);
      try {
        let closed = false;
        client.once('close', () => (closed = true));

        await patch(device, { description: 'renamed', alias: 'alias-' + randomUUID().slice(0, 8) });
        await sleep(300);

        expect(closed).to.equal(false);
        expect(client.connected).to.equal(true);
      } finally {
        await endAll(client);
      }
    });
  });

  describe('after the token is rotated', () => {
    it('the live session is closed, the old token is refused with 5 and the new one connects', async () => {
      const device = await aDevice(stack);
      const live = await connectDevice(stack.mqttUrl, device);
      let newToken: string;
      try {
        const closed = closeOf(live);
        const res = await stack.admin('POST', `/v2/admin/devices/${device.deviceid}/token`);
        expect(res.status).to.equal(200);
        newToken = res.body.token;
        await closed;
      } finally {
        await endAll(live);
      }

      const err = await refusalOf(stack.mqttUrl, { clientId: device.deviceid, username: device.token });
      const client = await connectDevice(stack.mqttUrl, { ...device, token: newToken });

      expect(err.code).to.equal(NOT_AUTHORIZED);
      expect(newToken).to.not.equal(device.token);
      await endAll(client);
    });
  });

  describe('after a deletion', () => {
    it('the device is refused with 5', async () => {
      const device = await aDevice(stack);
      await stack.admin('DELETE', `/v2/admin/devices/${device.deviceid}`);

      const err = await refusalOf(stack.mqttUrl, { clientId: device.deviceid, username: device.token });

      expect(err.code).to.equal(NOT_AUTHORIZED);
    });
  });

  describe('a device moved to another group and reconnected', () => {
    it('hears the new group and no longer the old one', async () => {
      const [mover, oldMate] = await aGroup(stack, 2);
      const newMate = await aDevice(stack, { projectid: mover.projectid });
      const before = await connectDevice(stack.mqttUrl, mover);
      try {
        const closed = closeOf(before);
        await patch(mover, { groupid: newMate.groupid });
        await closed;
      } finally {
        await endAll(before);
      }

      const client = await connectDevice(stack.mqttUrl, mover);
      try {
        await client.subscribeAsync('@msg/#');
        const seen = collect(client);
        const arrived = nextMessage(client);

        await restPublish(stack, oldMate, 'news', 'old group');
        await restPublish(stack, newMate, 'news', 'new group');

        expect(await arrived).to.deep.equal({ topic: '@msg/news', payload: 'new group' });
        await sleep(300);
        expect(seen.map((m) => m.payload)).to.deep.equal(['new group']);
      } finally {
        await endAll(client);
      }
    });

    it('is heard by the new group and no longer by the old one', async () => {
      const [mover, oldMate] = await aGroup(stack, 2);
      const newMate = await aDevice(stack, { projectid: mover.projectid });
      await patch(mover, { groupid: newMate.groupid });
      const [moved, oldClient, newClient] = await Promise.all(
        [mover, oldMate, newMate].map((d) => connectDevice(stack.mqttUrl, d)),
      );
      try {
        await Promise.all([oldClient, newClient].map((c) => c.subscribeAsync('@msg/#')));
        const heardByOld = collect(oldClient);
        const arrived = nextMessage(newClient);

        await moved.publishAsync('@msg/hello', 'I moved');

        expect(await arrived).to.deep.equal({ topic: '@msg/hello', payload: 'I moved' });
        await sleep(300);
        expect(heardByOld).to.deep.equal([]);
      } finally {
        await endAll(moved, oldClient, newClient);
      }
    });
  });
});

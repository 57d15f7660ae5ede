import { expect } from 'chai';
import { connect, Socket } from 'node:net';
import { MqttClient } from 'mqtt';
import { Packet, parser } from 'mqtt-packet';
import { aDevice, aGroup, TestDevice } from '../../helpers/devices';
import { connectRaw, endAll, nextMessage, sleep } from '../../helpers/mqtt';
import { closeOf, presenceBecomes, presenceOf, refusalOf, restPublish } from '../../helpers/mqtt-expect';
import { connackOf } from '../../helpers/mqtt-raw';
import { connackOf5, connect5, disconnectOf, nextPublish } from '../../helpers/mqtt5';
import { startStack, Stack } from '../../helpers/stack';

/** CONNACK return codes of MQTT 3.1 and 3.1.1 (§3.2.2.3). */
const RC = { IDENTIFIER_REJECTED: 2, NOT_AUTHORIZED: 5 };
/** MQTT 5 reason codes (MQTT 5.0 §2.4). */
const RC5 = { SUCCESS: 0, BAD_CREDENTIALS: 0x86, TAKEN_OVER: 0x8e };

/** The device's credentials with an empty ClientID: the token alone says which device connects. */
const byTokenAlone = (device: TestDevice, extra: object = {}) => ({ clientId: '', username: device.token, password: '', ...extra });

/** A private message to the device over REST; it reaches only that device's connection (its scope). */
async function restPrivate(stack: Stack, device: TestDevice, topic: string, payload: string): Promise<void> {
  const res = await stack.http('PUT', `/v2/device/private/${topic}`, { body: payload, headers: { authorization: device.auth } });
  if (res.status !== 200) throw new Error(`PUT /v2/device/private/${topic} answered ${res.status} ${res.text}`);
}

const utf8 = (s: string) => {
  const bytes = Buffer.from(s);
  return Buffer.concat([Buffer.from([bytes.length >> 8, bytes.length & 0xff]), bytes]);
};
/** A CONNECT packet of `body` (short: a one-byte Remaining Length). */
const connectFrame = (body: Buffer) => Buffer.concat([Buffer.from([0x10, body.length]), body]);

/**
 * Writes a CONNECT made by hand, which mqtt.js and mqtt-packet refuse to send, and reads what the broker answers
 * with mqtt-packet until the socket is destroyed.
 */
function handWrittenSession(port: number, protocolVersion: 3 | 5, connectPacket: Buffer) {
  const socket: Socket = connect(port, '127.0.0.1');
  const read = parser({ protocolVersion });
  const received: Packet[] = [];
  const waiting: { cmd: string; resolve: (p: Packet) => void }[] = [];
  read.on('packet', (packet: Packet) => {
    const at = waiting.findIndex((w) => w.cmd === packet.cmd);
    if (at >= 0) waiting.splice(at, 1)[0].resolve(packet);
    else received.push(packet);
  });
  socket.on('data', (chunk) => read.parse(chunk));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(connectPacket);
  return {
    next<C extends Packet['cmd']>(cmd: C): Promise<Extract<Packet, { cmd: C }>> {
      const already = received.findIndex((p) => p.cmd === cmd);
      if (already >= 0) return Promise.resolve(received.splice(already, 1)[0] as Extract<Packet, { cmd: C }>);
      return Promise.race([
        new Promise<Extract<Packet, { cmd: C }>>((resolve) => waiting.push({ cmd, resolve: resolve as (p: Packet) => void })),
        closed.then(() => Promise.reject(new Error(`the broker closed the connection before a ${cmd}`))),
      ]);
    },
    destroy: () => socket.destroy(),
  };
}

/** MQTT 3.1 (`MQIsdp`, protocol level 3), CleanSession 1, an empty ClientID, username = token, keep-alive 60 s. */
const mqtt31ConnectWithoutClientId = (token: string) =>
  connectFrame(Buffer.concat([utf8('MQIsdp'), Buffer.from([3, 0x80 | 0x02, 0, 60]), utf8(''), utf8(token)]));

/** MQTT 5, Clean Start 0, Session Expiry Interval 60 s, an empty ClientID, username = token, keep-alive 60 s. */
const mqtt5ResumeWithoutClientId = (token: string) =>
  connectFrame(Buffer.concat([utf8('MQTT'), Buffer.from([5, 0x80, 0, 60, 5, 0x11, 0, 0, 0, 60]), utf8(''), utf8(token)]));

describe('MQTT CONNECT with an empty ClientID: the token names the device, whose id becomes the ClientID (issue 17)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  describe('MQTT 3.1.1', () => {
    it('[MQTT-3.1.3-6] [MQTT-3.1.3-7] CleanSession 1: CONNACK 0, the device\'s private and group messages arrive, and it is online', async () => {
      const [device, groupmate] = await aGroup(stack, 2);
      const client = await connectRaw(stack.mqttUrl, byTokenAlone(device, { protocolVersion: 4, clean: true }));
      try {
        await client.subscribeAsync(['@private/#', '@msg/zero/#']);

        const privately = nextMessage(client, (topic) => topic.startsWith('@private/'));
        await restPrivate(stack, device, 'zero', 'for this device');
        expect(await privately).to.deep.equal({ topic: '@private/zero', payload: 'for this device' });
        const fromGroup = nextMessage(client, (topic) => topic.startsWith('@msg/'));
        await restPublish(stack, groupmate, 'zero/len', 'for the group');
        expect(await fromGroup).to.deep.equal({ topic: '@msg/zero/len', payload: 'for the group' });
        expect(await presenceOf(stack, device), 'connected').to.equal(1);
      } finally {
        await client.endAsync();
      }

      expect(await presenceBecomes(stack, device, 0), 'after DISCONNECT').to.equal(0);
    });

    it('[MQTT-3.1.3-6] [MQTT-3.1.4-2] takes over the connection the device made with its id, as the id itself would; the device stays online', async () => {
      const device = await aDevice(stack);
      const withId = await connectRaw(stack.mqttUrl, { clientId: device.deviceid, username: device.token, password: '' });
      const withIdClosed = closeOf(withId);
      let withoutId: MqttClient | undefined;
      try {
        withoutId = await connectRaw(stack.mqttUrl, byTokenAlone(device, { clean: true }));

        await withIdClosed;
        await sleep(200);
        expect(await presenceOf(stack, device)).to.equal(1);
        expect(withoutId.connected).to.equal(true);
      } finally {
        await endAll(withId, withoutId);
      }
    });

    it('[MQTT-3.1.3-8] [MQTT-3.2.2-4] CleanSession 0: CONNACK 2, identifier rejected, Session Present 0', async () => {
      const device = await aDevice(stack);

      const connack = await connackOf(stack.server.mqttPort, { clientId: '', token: device.token, clean: false });

      expect(connack).to.deep.equal({ sessionPresent: false, returnCode: RC.IDENTIFIER_REJECTED });
    });

    it('[MQTT-3.2.2-4] a wrong token, no token, or a wrong secret: CONNACK 5 with Session Present 0, as with a ClientID', async () => {
      const device = await aDevice(stack);

      const wrongToken = await connackOf(stack.server.mqttPort, { clientId: '', token: 'not-a-token-of-any-device', clean: true });
      const noToken = await connackOf(stack.server.mqttPort, { clientId: '', token: '', clean: true });
      const wrongSecret = await refusalOf(stack.mqttUrl, byTokenAlone(device, { password: 'not-the-secret', clean: true }));

      expect([wrongToken, noToken]).to.deep.equal([
        { sessionPresent: false, returnCode: RC.NOT_AUTHORIZED },
        { sessionPresent: false, returnCode: RC.NOT_AUTHORIZED },
      ]);
      expect(wrongSecret.code).to.equal(RC.NOT_AUTHORIZED);
      expect(await presenceOf(stack, device)).to.equal(0);
    });

    it('[MQTT-3.2.2-5] a disabled device, and the token a rotation replaced, are refused as with a ClientID: CONNACK 5', async () => {
      const [disabled, rotated] = await aGroup(stack, 2);
      await stack.admin('PATCH', `/v2/admin/devices/${disabled.deviceid}`, { body: { enabled: false } });
      const res = await stack.admin('POST', `/v2/admin/devices/${rotated.deviceid}/token`);
      expect(res.status, res.text).to.equal(200);

      const refusals = [await refusalOf(stack.mqttUrl, byTokenAlone(disabled)), await refusalOf(stack.mqttUrl, byTokenAlone(rotated))];

      expect(refusals.map((err) => err.code)).to.deep.equal([RC.NOT_AUTHORIZED, RC.NOT_AUTHORIZED]);
      const client = await connectRaw(stack.mqttUrl, byTokenAlone({ ...rotated, token: res.body.token }));
      await client.endAsync();
    });
  });

  it('MQTT 3.1, whose ClientID has 1 to 23 characters: CONNACK 2, identifier rejected', async () => {
    const device = await aDevice(stack);
    const session = handWrittenSession(stack.server.mqttPort, 3, mqtt31ConnectWithoutClientId(device.token));
    try {
      expect((await session.next('connack')).returnCode).to.equal(RC.IDENTIFIER_REJECTED);
    } finally {
      session.destroy();
    }
  });

  describe('MQTT 5', () => {
    it('[MQTT-3.1.3-6] [MQTT-3.1.3-7] [MQTT-3.2.2-16] Clean Start 1: CONNACK 0x00 with the device id as Assigned Client Identifier; its messages arrive', async () => {
      const [device, groupmate] = await aGroup(stack, 2);
      const { client, connack } = await connect5(stack.mqttUrl, device, byTokenAlone(device, { clean: true }));
      try {
        expect(connack.reasonCode).to.equal(RC5.SUCCESS);
        expect(connack.properties?.assignedClientIdentifier).to.equal(device.deviceid);
        await client.subscribeAsync(['@private/#', '@msg/zero5']);

        const privately = nextPublish(client, (p) => p.topic.startsWith('@private/'));
        await restPrivate(stack, device, 'zero5', 'for this device');
        expect((await privately).payload.toString()).to.equal('for this device');
        const fromGroup = nextPublish(client, (p) => p.topic === '@msg/zero5');
        await restPublish(stack, groupmate, 'zero5', 'for the group');
        expect((await fromGroup).payload.toString()).to.equal('for the group');
        expect(await presenceOf(stack, device)).to.equal(1);
      } finally {
        await endAll(client);
      }
    });

    it('[MQTT-3.1.3-7] [MQTT-3.2.2-2] Clean Start 0 resumes the device\'s stored session: Session Present 1 and the messages queued meanwhile', async () => {
      const [device, publisher] = await aGroup(stack, 2);
      const first = await connect5(stack.mqttUrl, device, { clean: false, properties: { sessionExpiryInterval: 60 } });
      await first.client.subscribeAsync('@msg/queued', { qos: 1 });
      await first.client.endAsync();
      await restPublish(stack, publisher, 'queued', 'while away');

      // mqtt.js will not send an empty ClientID with Clean Start 0 (it applies 3.1.1's [MQTT-3.1.3-7] to MQTT 5 too).
      const again = handWrittenSession(stack.server.mqttPort, 5, mqtt5ResumeWithoutClientId(device.token));
      try {
        const connack = await again.next('connack');
        expect([connack.reasonCode, connack.sessionPresent]).to.deep.equal([RC5.SUCCESS, true]);
        expect(connack.properties?.assignedClientIdentifier).to.equal(device.deviceid);
        const queued = await again.next('publish');
        expect([queued.topic, queued.payload.toString()]).to.deep.equal(['@msg/queued', 'while away']);
      } finally {
        again.destroy();
      }
    });

    it('[MQTT-3.1.4-2] takes over the connection the device made with its id: DISCONNECT 0x8E to the older one', async () => {
      const device = await aDevice(stack);
      const withId = await connect5(stack.mqttUrl, device);
      const takenOver = disconnectOf(withId.client);
      let withoutId: MqttClient | undefined;
      try {
        withoutId = (await connect5(stack.mqttUrl, device, byTokenAlone(device))).client;

        expect((await takenOver).reasonCode).to.equal(RC5.TAKEN_OVER);
      } finally {
        await endAll(withId.client, withoutId);
      }
    });

    it('[MQTT-3.2.2-6] a wrong token: 0x86 Bad User Name or Password, the answer an unknown device gets, and no Assigned Client Identifier', async () => {
      const device = await aDevice(stack);

      const connack = await connackOf5(stack.mqttUrl, byTokenAlone(device, { username: 'not-a-token-of-any-device' }));

      expect(connack.reasonCode).to.equal(RC5.BAD_CREDENTIALS);
      expect(connack.sessionPresent).to.equal(false);
      expect(connack.properties?.reasonString).to.equal('unknown device or wrong token');
      expect(connack.properties?.assignedClientIdentifier).to.equal(undefined);
    });
  });
});

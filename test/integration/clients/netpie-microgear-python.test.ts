import { expect } from 'chai';
import { MqttClient } from 'mqtt';
import type { IPublishPacket } from 'mqtt-packet';
import { aDevice, TestDevice } from '../../helpers/devices';
import { connectRaw, endAll, nextMessage, sleep } from '../../helpers/mqtt';
import { WireSession } from '../../helpers/mqtt-wire';
import { classicConnect, classicSession, PINGREQ, qos0Publish, singleSubscribe, within } from '../../helpers/netpie-clients';
import { asDevice } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

/**
 * The NETPIE vendor's Python "Microgear" for block editors (both by NETPIE's Chavee Issariyapat), replayed.
 * - chavee/KidBrightAI-NETPIE-Plugin `libs/netpie.py` (KidBright AI, on a paho-mqtt copy in `libs/mqttclient.py`):
 *   ClientID = device id, username = token, password '' (username_pw_set(token, '')), keepalive 30, paho's clean
 *   session, MQTT 3.1.1. Subscribes `@private/#` and `@shadow/data/updated` when the connect block asks. Publishes
 *   `writeShadowField('a.b', v)` as json.dumps({'data': {'a': {'b': v}}}) on `@shadow/data/update`, `getShadowData`
 *   as '' on `@shadow/data/get`, `push(title, body)` as json.dumps({"title", "body"}) on `@push` (no subtitle).
 *   Reads `sobj['data']` of `@shadow/data/updated` and the whole `@private/shadow/data/get/response` object.
 * - sensorthai/microBlock-NETPIE `modules/microgear.py` (microBlock IDE, MicroPython): its own copy of umqtt.simple,
 *   keepalive 30, password '', clean session; on connect subscribes `@private/#` then `@shadow/data/updated`, one
 *   SUBSCRIBE each, raising on a SUBACK of 0x80; a PINGREQ every 30 s; ujson.loads of both shadow topics.
 */

/** CPython's json.dumps: a space after ':' and ','. */
const pythonDumps = (value: unknown) => JSON.stringify(value).replace(/":/g, '": ').replace(/,"/g, ', "');

/** KidBrightAI-NETPIE-Plugin libs/netpie.py connect(): paho Client(client_id=deviceid) + username_pw_set(token, ''). */
function kidbright(stack: Stack, device: TestDevice): Promise<MqttClient> {
  return connectRaw(stack.mqttUrl, { clientId: device.deviceid, username: device.token, password: '', protocolVersion: 4, keepalive: 30, clean: true });
}

/** microBlock-NETPIE modules/microgear.py Microgear(deviceid, devicetoken).connect(). */
async function microBlock(stack: Stack, device: TestDevice): Promise<WireSession> {
  const session = classicSession(
    stack.server.mqttPort,
    classicConnect({ clientId: device.deviceid, username: device.token, password: '', keepalive: 30, clean: true }),
  );
  const connack = await within(session.next('connack'), 3000, 'CONNACK');
  expect(connack.returnCode).to.equal(0);
  // mg_connected_cb: '@private/#' then '@shadow/data/updated', each waited for; SUBACK 0x80 raises MQTTException.
  for (const [packetId, filter] of [
    [1, '@private/#'],
    [2, '@shadow/data/updated'],
  ] as const) {
    session.sendRaw(singleSubscribe(packetId, filter));
    const suback = await within(session.next('suback'), 3000, `SUBACK for ${filter}`);
    expect(suback.messageId).to.equal(packetId);
    expect(suback.granted, filter).to.deep.equal([0]);
  }
  return session;
}

const nextPublish = (session: WireSession, topic: string) =>
  within(session.next('publish', (p: IPublishPacket) => p.topic === topic), 3000, `a PUBLISH on ${topic}`);

describe('clients: NETPIE Microgear for Python block editors (KidBright AI plugin, microBlock)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  describe('KidBrightAI-NETPIE-Plugin libs/netpie.py (paho)', () => {
    // blocks/generators.js netpie_connect: subscribe('@private/#') and subscribe('@shadow/data/updated') before connect().
    it('KidBright AI netpie: connects with password \'\' and keepalive 30; @private/# and @shadow/data/updated are granted', async () => {
      const device = await aDevice(stack);
      const client = await kidbright(stack, device);
      try {
        const granted = await client.subscribeAsync(['@private/#', '@shadow/data/updated']);
        expect(granted.map((g) => g.qos)).to.deep.equal([0, 0]);
      } finally {
        await endAll(client);
      }
    });

    // libs/netpie.py writeShadowField(): dotted path -> nested object; mg_message_cb hands sobj['data'] to the block,
    // which reads shadow['room']['temp'].
    it('KidBright AI netpie: writeShadowField(\'room.temp\', 25.5) publishes nested data and reads data.room.temp from @shadow/data/updated', async () => {
      const device = await aDevice(stack);
      const client = await kidbright(stack, device);
      try {
        await client.subscribeAsync(['@private/#', '@shadow/data/updated']);
        const updated = nextMessage(client, (t) => t === '@shadow/data/updated');

        await client.publishAsync('@shadow/data/update', pythonDumps({ data: { room: { temp: 25.5 } } }));

        const sobj = JSON.parse((await updated).payload);
        expect(sobj.data.room.temp).to.equal(25.5);
      } finally {
        await endAll(client);
      }
    });

    // libs/netpie.py getShadowData(): publish('@shadow/data/get', ''); the callback gets the parsed reply.
    it('KidBright AI netpie: getShadowData publishes \'\' on @shadow/data/get and gets the object with data on @private/shadow/data/get/response', async () => {
      const device = await aDevice(stack);
      await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { room: { temp: 19 } } } });
      const client = await kidbright(stack, device);
      try {
        await client.subscribeAsync(['@private/#']);
        const reply = nextMessage(client, (t) => t === '@private/shadow/data/get/response');

        await client.publishAsync('@shadow/data/get', '');

        expect(JSON.parse((await reply).payload).data).to.deep.equal({ room: { temp: 19 } });
      } finally {
        await endAll(client);
      }
    });

    // libs/netpie.py push(title, body): '@push' with {"title": …, "body": …}, no subtitle (issue 18, item 4).
    it('KidBright AI netpie: push(title, body) publishes {"title","body"} on @push and the connection stays up', async () => {
      const device = await aDevice(stack);
      const client = await kidbright(stack, device);
      try {
        await client.subscribeAsync(['@private/#']);
        let closed = false;
        client.on('close', () => (closed = true));

        await within(client.publishAsync('@push', pythonDumps({ title: 'Door', body: 'Front door opened' })), 2000, 'publish @push');
        await sleep(200);

        expect(closed, 'the connection was closed after @push').to.equal(false);
        const reply = nextMessage(client, (t) => t === '@private/shadow/data/get/response');
        await within(client.publishAsync('@shadow/data/get', ''), 2000, 'publish @shadow/data/get');
        expect(JSON.parse((await reply).payload).deviceid).to.equal(device.deviceid);
      } finally {
        await endAll(client);
      }
    });
  });

  describe('microBlock-NETPIE modules/microgear.py (umqtt.simple copy)', () => {
    it('microBlock microgear: CONNECT with password \'\' and keepalive 30 is accepted, and both of its SUBSCRIBEs get 0, not 0x80', async () => {
      const device = await aDevice(stack);
      const board = await microBlock(stack, device);
      try {
        const status = await asDevice(stack, device)('GET', '/v2/device/status');
        expect(status.body.status).to.equal(1);
      } finally {
        board.destroy();
      }
    });

    // microgear.py tick(): a PINGREQ once keepalive (30 s) has passed since the last; wait_msg() expects 0xd0 0x00.
    it('microBlock microgear: its PINGREQ is answered with PINGRESP', async () => {
      const device = await aDevice(stack);
      const board = await microBlock(stack, device);
      try {
        board.sendRaw(PINGREQ);

        await within(board.next('pingresp'), 3000, 'PINGRESP');
      } finally {
        board.destroy();
      }
    });

    // microgear.py writeShadowField(): ujson.dumps({'data': nested}) on '@shadow/data/update'; mg_message_cb passes
    // ujson.loads(payload) of '@shadow/data/updated' to the block. Topics are decoded as ASCII.
    it('microBlock microgear: writeShadowField publishes on @shadow/data/update and gets @shadow/data/updated with data', async () => {
      const device = await aDevice(stack);
      const board = await microBlock(stack, device);
      try {
        board.sendRaw(qos0Publish('@shadow/data/update', pythonDumps({ data: { led: { state: 1 } } })));

        const packet = await nextPublish(board, '@shadow/data/updated');
        expect(packet.qos).to.equal(0);
        const sobj = JSON.parse(packet.payload.toString());
        expect(sobj.deviceid).to.equal(device.deviceid);
        expect(sobj.data).to.deep.equal({ led: { state: 1 } });
      } finally {
        board.destroy();
      }
    });

    // microgear.py getShadowData(): publish('@shadow/data/get', ''); the reply topic is matched exactly.
    it('microBlock microgear: getShadowData is answered on @private/shadow/data/get/response at QoS 0', async () => {
      const device = await aDevice(stack);
      await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { led: { state: 0 } } } });
      const board = await microBlock(stack, device);
      try {
        board.sendRaw(qos0Publish('@shadow/data/get', ''));

        const packet = await nextPublish(board, '@private/shadow/data/get/response');
        // wait_msg() answers QoS 1 with PUBACK and asserts on QoS 2: the replies it gets are QoS 0 (it subscribed at 0).
        expect(packet.qos).to.equal(0);
        expect(JSON.parse(packet.payload.toString()).data).to.deep.equal({ led: { state: 0 } });
      } finally {
        board.destroy();
      }
    });
  });
});

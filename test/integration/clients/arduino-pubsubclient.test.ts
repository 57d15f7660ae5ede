import { expect } from 'chai';
import type { IPublishPacket } from 'mqtt-packet';
import { aDevice, aGroup, TestDevice } from '../../helpers/devices';
import { coapAs } from '../../helpers/coap';
import { connectDevice, endAll, nextMessage } from '../../helpers/mqtt';
import { WireSession } from '../../helpers/mqtt-wire';
import { classicConnect, classicSession, PINGREQ, qos0Publish, singleSubscribe, within, wireSizeOf } from '../../helpers/netpie-clients';
import { asDevice } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

/**
 * Arduino and ESP32/ESP8266 devices on NETPIE 2020 use knolleary/pubsubclient (NETPIE publishes no Arduino library of
 * its own for 2020): NETPIE's own example chavee/NETPIE2020-TLS-Example `NETPIE2020-TLS-EXAMPLE.ino`, and course
 * sketches such as bxstrs/embedded_project_2024 `netpie2020/netpie2020/netpie2020.ino` and NChancheep/Arduino-project
 * `embedded/week12/Activity12-NETPIE2020/NETPIE2020_Starter_Code/NETPIE2020_Starter_Code.ino`.
 * - PubSubClient connect(clientId, user, pass): MQTT 3.1.1, clean session, keepalive MQTT_KEEPALIVE = 15 s, user and
 *   password flags whenever both are given (NETPIE's example passes "" as password, the course sketches the secret).
 * - QoS 0 publishes only; one SUBSCRIBE per subscribe(), at QoS 0.
 * - An incoming packet larger than its buffer, MQTT_MAX_PACKET_SIZE = 256 bytes with the fixed header, is dropped
 *   unseen: a reply the sketch waits for must fit.
 * - Sketches build shadow JSON with String concatenation and String(float) (two decimals; `nan` when a sensor read fails).
 */

const PUBSUBCLIENT_BUFFER = 256;

async function sketch(stack: Stack, device: TestDevice, password: string): Promise<WireSession> {
  const session = classicSession(
    stack.server.mqttPort,
    classicConnect({ clientId: device.deviceid, username: device.token, password, keepalive: 15, clean: true }),
  );
  const connack = await within(session.next('connack'), 3000, 'CONNACK');
  expect(connack.returnCode, 'client.connect() returned false').to.equal(0);
  return session;
}

async function subscribe(session: WireSession, packetId: number, filter: string): Promise<void> {
  session.sendRaw(singleSubscribe(packetId, filter));
  const suback = await within(session.next('suback'), 3000, `SUBACK for ${filter}`);
  expect(suback.granted, filter).to.deep.equal([0]);
}

const nextPublish = (session: WireSession, topic: string) =>
  within(session.next('publish', (p: IPublishPacket) => p.topic === topic), 3000, `a PUBLISH on ${topic}`);

describe('clients: Arduino / ESP32 sketches on PubSubClient', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  // chavee/NETPIE2020-TLS-Example NETPIE2020-TLS-EXAMPLE.ino connect(): mqttclient.connect(DEVICE_ID, DEVICE_TOKEN, ""),
  // then subscribe("@msg/#") and publish("@msg/hello", "Hello NETPIE 2020").
  it('PubSubClient (NETPIE\'s example): connect(id, token, "") is accepted; @msg/hello reaches a groupmate and comes back on @msg/#', async () => {
    const [device, listener] = await aGroup(stack, 2);
    const board = await sketch(stack, device, '');
    const other = await connectDevice(stack.mqttUrl, listener);
    try {
      await other.subscribeAsync('@msg/#');
      const heard = nextMessage(other);
      await subscribe(board, 1, '@msg/#');

      board.sendRaw(qos0Publish('@msg/hello', 'Hello NETPIE 2020'));

      expect(await heard).to.deep.equal({ topic: '@msg/hello', payload: 'Hello NETPIE 2020' });
      expect((await nextPublish(board, '@msg/hello')).payload.toString()).to.equal('Hello NETPIE 2020');
    } finally {
      board.destroy();
      await endAll(other);
    }
  });

  // bxstrs/embedded_project_2024 netpie2020.ino: client.connect(mqtt_Client, mqtt_username, mqtt_password) with the secret.
  it('PubSubClient (course sketches): connect(id, token, secret) is accepted and the device shows online', async () => {
    const device = await aDevice(stack);
    const board = await sketch(stack, device, device.secret);
    try {
      const status = await asDevice(stack, device)('GET', '/v2/device/status');
      expect(status.body.status).to.equal(1);
    } finally {
      board.destroy();
    }
  });

  // PubSubClient loop(): a PINGREQ after 15 s of silence; no PINGRESP within the socket timeout closes the connection.
  it('PubSubClient: its PINGREQ (keepalive 15 s) is answered with PINGRESP', async () => {
    const device = await aDevice(stack);
    const board = await sketch(stack, device, '');
    try {
      board.sendRaw(PINGREQ);

      await within(board.next('pingresp'), 3000, 'PINGRESP');
    } finally {
      board.destroy();
    }
  });

  // Sketches: String data = "{\"data\": {\"Temperature\":" + String(t) + "}}"; publish("@shadow/data/update", …);
  // the callback reads '@shadow/data/updated' only when the packet fits the 256-byte buffer.
  it('PubSubClient: a String-built {"data": …} on @shadow/data/update is announced on @shadow/data/updated within the 256-byte buffer', async () => {
    const device = await aDevice(stack);
    const board = await sketch(stack, device, '');
    try {
      await subscribe(board, 1, '@shadow/data/updated');

      board.sendRaw(qos0Publish('@shadow/data/update', '{"data": {"Temperature":' + '31.25' + ', "Humidity":' + '60.00' + '}}'));

      const packet = await nextPublish(board, '@shadow/data/updated');
      expect(wireSizeOf(packet), packet.payload.toString()).to.be.at.most(PUBSUBCLIENT_BUFFER);
      expect(JSON.parse(packet.payload.toString()).data).to.deep.equal({ Temperature: 31.25, Humidity: 60 });
    } finally {
      board.destroy();
    }
  });

  it('PubSubClient: the @private/shadow/data/get/response of a small shadow fits the 256-byte buffer', async () => {
    const device = await aDevice(stack);
    await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { Temperature: 31.25, Humidity: 60, LED: 'on' } } });
    const board = await sketch(stack, device, '');
    try {
      await subscribe(board, 1, '@private/#');

      board.sendRaw(qos0Publish('@shadow/data/get', ''));

      const packet = await nextPublish(board, '@private/shadow/data/get/response');
      expect(wireSizeOf(packet), packet.payload.toString()).to.be.at.most(PUBSUBCLIENT_BUFFER);
      expect(JSON.parse(packet.payload.toString()).data).to.deep.equal({ Temperature: 31.25, Humidity: 60, LED: 'on' });
    } finally {
      board.destroy();
    }
  });

  // String(NAN) is "nan": a sketch whose DHT read failed publishes invalid JSON. The sketch keeps publishing on the
  // same connection, so the service must answer the request, not drop the device.
  it('PubSubClient: {"data": {"Temperature":nan}} from a failed sensor read is answered with an error on @private/shadow/data/update/response and the connection stays up', async () => {
    const device = await aDevice(stack);
    const board = await sketch(stack, device, '');
    try {
      await subscribe(board, 1, '@private/#');

      board.sendRaw(qos0Publish('@shadow/data/update', '{"data": {"Temperature":nan}}'));

      const reply = JSON.parse((await nextPublish(board, '@private/shadow/data/update/response')).payload.toString());
      expect(reply).to.include({ status: 400, code: 'INVALID_JSON' });
      board.sendRaw(PINGREQ);
      await within(board.next('pingresp'), 3000, 'PINGRESP after the refused update');
      expect(board.isClosed()).to.equal(false);
    } finally {
      board.destroy();
    }
  });

  // A sketch that drives a relay from its shadow hears writes made elsewhere (issue 18, item 2), here a CoAP write as
  // NETPIE's CoAP page shows it: PUT coap://…/shadow/data?auth=<ClientID>:<token> with {data:{temp:30.4}} (JSON5).
  it('PubSubClient: a sketch subscribed to @shadow/data/updated hears a CoAP write of its shadow ({data:{relay:1}})', async () => {
    const device = await aDevice(stack);
    const board = await sketch(stack, device, '');
    try {
      await subscribe(board, 1, '@shadow/data/updated');

      const res = await coapAs(stack.coapUrl, device)('PUT', '/shadow/data', { payload: '{data:{relay:1}}' });

      expect(res.code, res.text).to.equal('2.04');
      const packet = await nextPublish(board, '@shadow/data/updated');
      expect(wireSizeOf(packet)).to.be.at.most(PUBSUBCLIENT_BUFFER);
      expect(JSON.parse(packet.payload.toString()).data).to.deep.equal({ relay: 1 });
    } finally {
      board.destroy();
    }
  });

  it('PubSubClient: a sketch subscribed to @shadow/data/updated hears a REST batch write of its shadow', async () => {
    const device = await aDevice(stack);
    const board = await sketch(stack, device, '');
    try {
      await subscribe(board, 1, '@shadow/data/updated');

      const res = await asDevice(stack, device)('PUT', '/v2/device/shadow/batch', {
        body: { batch: [{ data: { relay: 0 }, ts: -1000 }, { data: { relay: 1 }, ts: 0 }] },
      });

      expect(res.status, res.text).to.equal(200);
      const packet = await nextPublish(board, '@shadow/data/updated');
      expect(JSON.parse(packet.payload.toString()).data.relay).to.equal(1);
    } finally {
      board.destroy();
    }
  });
});

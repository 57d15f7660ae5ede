import { expect } from 'chai';
import { request } from 'node:http';
import { coapAs } from '../../helpers/coap';
import { aGroup, TestDevice } from '../../helpers/devices';
import { connectDevice, endAll, nextMessage } from '../../helpers/mqtt';
import { connect5, nextPublish } from '../../helpers/mqtt5';
import { startStack, Stack } from '../../helpers/stack';

/** A REST publish with any headers, repeated ones as arrays; resolves with the status and parsed body. */
function putMessage(stack: Stack, device: TestDevice, path: string, body: string | Buffer, headers: Record<string, string | string[]>) {
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = request(`${stack.baseUrl}${path}`, { method: 'PUT', headers: { authorization: device.auth, ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('MQTT 5: message properties reach subscribers on every path', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  const properties = {
    contentType: 'application/json',
    payloadFormatIndicator: true,
    userProperties: { unit: 'celsius', tag: ['a', 'b'] },
    responseTopic: '@msg/answers',
    correlationData: Buffer.from('req-42'),
  };

  it('[MQTT-3.3.2-4] [MQTT-3.3.2-15] [MQTT-3.3.2-16] [MQTT-3.3.2-17] [MQTT-3.3.2-18] [MQTT-3.3.2-20] MQTT 5 to MQTT 5: unaltered, user properties in order', async () => {
    const [publisher, listener] = await aGroup(stack, 2);
    const tx = await connect5(stack.mqttUrl, publisher);
    const rx = await connect5(stack.mqttUrl, listener);
    try {
      await rx.client.subscribeAsync('@msg/room/+', { qos: 1 });
      const arrived = nextPublish(rx.client);

      await tx.client.publishAsync('@msg/room/1', '{"t":21.5}', { qos: 1, properties });

      const packet = await arrived;
      expect(packet.topic).to.equal('@msg/room/1');
      expect(packet.properties).to.deep.include({ ...properties });
      expect(Object.keys(packet.properties?.userProperties ?? {})).to.deep.equal(['unit', 'tag']);
    } finally {
      await endAll(tx.client, rx.client);
    }
  });

  it('MQTT 5 to MQTT 3.1.1: the message arrives, without properties (3.1.1 has none)', async () => {
    const [publisher, listener] = await aGroup(stack, 2);
    const tx = await connect5(stack.mqttUrl, publisher);
    const rx = await connectDevice(stack.mqttUrl, listener);
    try {
      await rx.subscribeAsync('@msg/room/#');
      const arrived = nextMessage(rx);
      await tx.client.publishAsync('@msg/room/2', 'v5 to v3', { qos: 1, properties });
      expect(await arrived).to.deep.equal({ topic: '@msg/room/2', payload: 'v5 to v3' });
    } finally {
      await endAll(tx.client, rx);
    }
  });

  describe('REST publishes set them with headers', () => {
    it('Content-Type, X-MQTT-User-Property (repeated, in order), X-MQTT-Response-Topic, X-MQTT-Correlation-Data, X-MQTT-Payload-Format', async () => {
      const [publisher, listener] = await aGroup(stack, 2);
      const rx = await connect5(stack.mqttUrl, listener);
      try {
        await rx.client.subscribeAsync('@msg/cmd');
        const arrived = nextPublish(rx.client);

        const res = await putMessage(stack, publisher, '/v2/device/message/cmd', '{"on":true}', {
          'content-type': 'application/json',
          'x-mqtt-user-property': ['source=rest', 'tag=a', 'note=x%3Dy, z', 'tag=b'],
          'x-mqtt-response-topic': '@msg/answers',
          'x-mqtt-correlation-data': Buffer.from('req-7').toString('base64'),
          'x-mqtt-payload-format': 'utf-8',
        });

        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        const packet = await arrived;
        expect(packet.payload.toString()).to.equal('{"on":true}');
        expect(packet.properties).to.deep.include({
          contentType: 'application/json',
          payloadFormatIndicator: true,
          responseTopic: '@msg/answers',
          correlationData: Buffer.from('req-7'),
          userProperties: { source: 'rest', tag: ['a', 'b'], note: 'x=y, z' },
        });
      } finally {
        await endAll(rx.client);
      }
    });

    it('private messages carry them too', async () => {
      const [device] = await aGroup(stack, 1);
      const rx = await connect5(stack.mqttUrl, device);
      try {
        await rx.client.subscribeAsync('@private/#');
        const arrived = nextPublish(rx.client);
        const res = await putMessage(stack, device, '/v2/device/private/cmd', 'reboot', { 'x-mqtt-user-property': 'by=ops' });
        expect(res.status).to.equal(200);
        expect((await arrived).properties?.userProperties).to.deep.equal({ by: 'ops' });
      } finally {
        await endAll(rx.client);
      }
    });

    const refused: [string, Record<string, string | string[]>, RegExp][] = [
      ['an expiry that is not whole seconds', { 'x-mqtt-message-expiry': 'soon' }, /^x-mqtt-message-expiry: expected whole seconds/],
      ['a user property without a name', { 'x-mqtt-user-property': '=v' }, /^x-mqtt-user-property\.0: expected name=value/],
      ['a response topic with a wildcard', { 'x-mqtt-response-topic': '@msg/a/#' }, /^x-mqtt-response-topic: wildcards/],
      ['a response topic outside the device topics', { 'x-mqtt-response-topic': 'answers' }, /^x-mqtt-response-topic: expected a topic starting with @msg/],
      ['correlation data that is not base64', { 'x-mqtt-correlation-data': '***' }, /^x-mqtt-correlation-data: expected base64/],
      ['a UTF-8 payload format for a body that is not UTF-8', { 'x-mqtt-payload-format': 'utf-8', 'content-type': 'application/octet-stream' }, /not valid UTF-8/],
      ['33 user properties', { 'x-mqtt-user-property': Array.from({ length: 33 }, (_, i) => `k${i}=v`) }, /at most 32/],
    ];
    for (const [what, headers, message] of refused) {
      it(`refuses ${what} with 400 INVALID_MESSAGE_PROPERTY`, async () => {
        const [publisher] = await aGroup(stack, 1);
        const body = headers['x-mqtt-payload-format'] ? Buffer.from([0xff]) : 'x';
        const res = await putMessage(stack, publisher, '/v2/device/message/t', body, headers);
        expect(res.status).to.equal(400);
        expect(res.body.code).to.equal('INVALID_MESSAGE_PROPERTY');
        expect(res.body.message).to.match(message);
      });
    }
  });

  it('CoAP publishes give their Content-Format as content type', async () => {
    const [publisher, listener] = await aGroup(stack, 2);
    const rx = await connect5(stack.mqttUrl, listener);
    try {
      await rx.client.subscribeAsync('@msg/coap');
      const arrived = nextPublish(rx.client);
      const res = await coapAs(stack.coapUrl, publisher)('PUT', '/message/coap', { payload: '{"a":1}', contentFormat: 'application/json' });
      expect(res.code, res.text).to.equal('2.04');
      expect((await arrived).properties?.contentType).to.equal('application/json');
    } finally {
      await endAll(rx.client);
    }
  });

  it('[MQTT-3.3.2-17] a retained message keeps its properties for later subscribers', async () => {
    const [publisher, listener] = await aGroup(stack, 2);
    const tx = await connect5(stack.mqttUrl, publisher);
    try {
      await tx.client.publishAsync('@msg/state', 'on', { qos: 1, retain: true, properties: { contentType: 'text/plain', userProperties: { v: '1' } } });
      const rx = await connect5(stack.mqttUrl, listener);
      try {
        const arrived = nextPublish(rx.client);
        await rx.client.subscribeAsync('@msg/state');
        const packet = await arrived;
        expect(packet.retain).to.equal(true);
        expect(packet.properties).to.deep.include({ contentType: 'text/plain', userProperties: { v: '1' } });
      } finally {
        await endAll(rx.client);
      }
    } finally {
      await endAll(tx.client);
    }
  });
});

import { expect } from 'chai';
import { aDevice, aGroup } from '../../helpers/devices';
import { collect, connectDevice, endAll, nextMessage, sleep } from '../../helpers/mqtt';
import { asDevice, expectError } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

/** What only REST's PUT /v2/device/message has; the rules shared with CoAP are in test/integration/device-api. */
describe('PUT /v2/device/message', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('takes the topic from ?topic= as well', async () => {
    const [sender, receiver] = await aGroup(stack, 2);
    const mqtt = await connectDevice(stack.mqttUrl, receiver);
    try {
      await mqtt.subscribeAsync('@msg/#');
      const arrived = nextMessage(mqtt);

      const res = await asDevice(stack, sender)('PUT', '/v2/device/message?topic=garden/pump/1', { body: '42' });

      expect(res.status).to.equal(200);
      expect(await arrived).to.deep.equal({ topic: '@msg/garden/pump/1', payload: '42' });
    } finally {
      await endAll(mqtt);
    }
  });

  // The client of the CoAP suites cannot send an empty Uri-Path segment (node-coap drops them), so empty levels and
  // trailing slashes are checked here only.
  const badTopics: [string, string][] = [
    ['a wildcard in ?topic=', '/v2/device/message?topic=home/%23'],
    ['an empty level', '/v2/device/message/home//lamp'],
    ['an empty level in ?topic=', '/v2/device/message?topic=home//lamp'],
    ['a trailing slash', '/v2/device/message/home/lamp/'],
    ['a trailing slash in ?topic=', '/v2/device/message?topic=home/lamp/'],
    ['a leading @ other than @msg/ in ?topic=', '/v2/device/message?topic=%40private/home'],
    ['@msg/ twice in ?topic=', '/v2/device/message?topic=%40msg/%40msg/home'],
    ['an empty ?topic=', '/v2/device/message?topic='],
    ['the topic both in the path and in ?topic=', '/v2/device/message/home/lamp?topic=home/lamp'],
  ];
  for (const [what, path] of badTopics) {
    it(`answers 400 INVALID_TOPIC for ${what} and publishes nothing`, async () => {
      const [sender, receiver] = await aGroup(stack, 2);
      const mqtt = await connectDevice(stack.mqttUrl, receiver);
      try {
        const seen = collect(mqtt);
        await mqtt.subscribeAsync('@msg/#');

        const res = await asDevice(stack, sender)('PUT', path, { body: 'ON' });
        await sleep(100);

        expectError(res, 400, 'INVALID_TOPIC');
        expect(seen).to.deep.equal([]);
      } finally {
        await endAll(mqtt);
      }
    });
  }

  it('publishes ?topic=@msg/{topic} on @msg/{topic}, as if written without the prefix NETPIE adds (issue 18 §5)', async () => {
    const [sender, receiver] = await aGroup(stack, 2);
    const mqtt = await connectDevice(stack.mqttUrl, receiver);
    try {
      await mqtt.subscribeAsync('@msg/#');
      const arrived = nextMessage(mqtt);

      const res = await asDevice(stack, sender)('PUT', '/v2/device/message?topic=%40msg%2Fled', { body: 'ON' });

      expect(res.body).to.deep.equal({ status: 200, message: 'published to @msg/led' });
      expect(await arrived).to.deep.equal({ topic: '@msg/led', payload: 'ON' });
    } finally {
      await endAll(mqtt);
    }
  });

  it('answers 415 UNSUPPORTED_MEDIA_TYPE for a multipart body (form bodies are the message: rest/content-types)', async () => {
    const sender = await aDevice(stack);

    const res = await asDevice(stack, sender)('PUT', '/v2/device/message/home/lamp', { body: 'state=ON', contentType: 'multipart/form-data; boundary=xyz' });

    expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });
});

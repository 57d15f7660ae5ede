import { expect } from 'chai';
import { coapAs, expectCoapError } from '../../helpers/coap';
import { aDevice, aGroup } from '../../helpers/devices';
import { connectDevice, endAll, nextMessage } from '../../helpers/mqtt';
import { startStack, Stack } from '../../helpers/stack';

/** What only CoAP's PUT /message has; the rules shared with REST are in test/integration/device-api. */
describe('CoAP PUT /message/{any}/{topic}', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('passes a block-wise payload on byte for byte', async () => {
    const [sender, receiver] = await aGroup(stack, 2);
    const mqtt = await connectDevice(stack.mqttUrl, receiver);
    const bytes = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7) % 256));
    try {
      await mqtt.subscribeAsync('@msg/raw');
      const arrived = new Promise<Buffer>((resolve) => mqtt.once('message', (_topic, payload) => resolve(payload)));

      const res = await coapAs(stack.coapUrl, sender)('PUT', '/message/raw', { payload: bytes });

      expect(res.code, res.text).to.equal('2.04');
      expect((await arrived).equals(bytes)).to.equal(true);
    } finally {
      await endAll(mqtt);
    }
  });

  it('answers a non-confirmable request as well', async () => {
    const [sender, receiver] = await aGroup(stack, 2);
    const mqtt = await connectDevice(stack.mqttUrl, receiver);
    try {
      await mqtt.subscribeAsync('@msg/non');
      const arrived = nextMessage(mqtt);

      const res = await coapAs(stack.coapUrl, sender)('PUT', '/message/non', { payload: 'x', nonConfirmable: true });

      expect(res.code).to.equal('2.04');
      expect((await arrived).payload).to.equal('x');
    } finally {
      await endAll(mqtt);
    }
  });

  it('tells the limit in Size1 when it answers 4.13 PAYLOAD_TOO_LARGE (RFC 7252 §5.10.9)', async () => {
    const coap = coapAs(stack.coapUrl, await aDevice(stack));

    const res = await coap('PUT', '/message/big', { payload: Buffer.alloc(256 * 1024 + 1) });

    expectCoapError(res, '4.13', 413, 'PAYLOAD_TOO_LARGE');
    expect(res.headers.Size1).to.equal(256 * 1024);
  });

  it('answers 4.05 METHOD_NOT_ALLOWED for GET, POST and DELETE', async () => {
    const coap = coapAs(stack.coapUrl, await aDevice(stack));

    for (const method of ['GET', 'POST', 'DELETE']) {
      expectCoapError(await coap(method, '/message/home/lamp', { payload: 'x' }), '4.05', 405, 'METHOD_NOT_ALLOWED');
    }
  });
});

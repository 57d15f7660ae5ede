import { expect } from 'chai';
import { coapAs, expectCoapError } from '../../helpers/coap';
import { aDevice, aGroup } from '../../helpers/devices';
import { collect, connectDevice, endAll, nextMessage, sleep } from '../../helpers/mqtt';
import { startStack, Stack } from '../../helpers/stack';

/** Time given to a message that should not arrive, after a control subscriber has already seen it. */
const GRACE_MS = 300;

describe('CoAP PUT /message/{any}/{topic}', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('delivers the payload to MQTT subscribers of @msg/{any}/{topic} in the group and replies 2.04', async () => {
    const [sender, receiver] = await aGroup(stack, 2);
    const mqtt = await connectDevice(stack.mqttUrl, receiver);
    try {
      await mqtt.subscribeAsync('@msg/home/+');
      const arrived = nextMessage(mqtt);

      const res = await coapAs(stack.coapUrl, sender)('PUT', '/message/home/lamp', { payload: 'ON' });

      expect(res.code, res.text).to.equal('2.04');
      expect(res.body).to.deep.equal({ message: 'published to @msg/home/lamp' });
      expect(await arrived).to.deep.equal({ topic: '@msg/home/lamp', payload: 'ON' });
    } finally {
      await endAll(mqtt);
    }
  });

  it('reaches no device of another group, even one subscribed to the same topic', async () => {
    const [sender, sameGroup] = await aGroup(stack, 2);
    const otherGroup = await aDevice(stack, { projectid: sender.projectid });
    const control = await connectDevice(stack.mqttUrl, sameGroup);
    const outsider = await connectDevice(stack.mqttUrl, otherGroup);
    try {
      await control.subscribeAsync('@msg/#');
      await outsider.subscribeAsync('@msg/#');
      const seenByOutsider = collect(outsider);
      const arrived = nextMessage(control);

      await coapAs(stack.coapUrl, sender)('PUT', '/message/home/lamp', { payload: 'ON' });

      await arrived;
      await sleep(GRACE_MS);
      expect(seenByOutsider).to.deep.equal([]);
    } finally {
      await endAll(control, outsider);
    }
  });

  it('passes the payload on byte for byte, including a block-wise one', async () => {
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

  it('answers 4.00 INVALID_TOPIC for a wildcard, a leading @ or no topic at all', async () => {
    const coap = coapAs(stack.coapUrl, await aDevice(stack));

    for (const path of ['/message/home/+', '/message/home/#', '/message/@msg/x', '/message']) {
      expectCoapError(await coap('PUT', path, { payload: 'x' }), '4.00', 400, 'INVALID_TOPIC');
    }
  });

  it('answers 4.13 PAYLOAD_TOO_LARGE with Size1 for a payload over 256 KiB, and publishes nothing', async () => {
    const [sender, receiver] = await aGroup(stack, 2);
    const mqtt = await connectDevice(stack.mqttUrl, receiver);
    try {
      await mqtt.subscribeAsync('@msg/#');
      const seen = collect(mqtt);

      const res = await coapAs(stack.coapUrl, sender)('PUT', '/message/big', { payload: Buffer.alloc(256 * 1024 + 1) });

      expectCoapError(res, '4.13', 413, 'PAYLOAD_TOO_LARGE');
      expect(res.headers.Size1).to.equal(256 * 1024);
      await sleep(GRACE_MS);
      expect(seen).to.deep.equal([]);
    } finally {
      await endAll(mqtt);
    }
  });

  it('answers 4.05 METHOD_NOT_ALLOWED for GET, POST and DELETE', async () => {
    const coap = coapAs(stack.coapUrl, await aDevice(stack));

    for (const method of ['GET', 'POST', 'DELETE']) {
      expectCoapError(await coap(method, '/message/home/lamp', { payload: 'x' }), '4.05', 405, 'METHOD_NOT_ALLOWED');
    }
  });
});

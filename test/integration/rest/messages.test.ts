import { expect } from 'chai';
import { aDevice, aGroup } from '../../helpers/devices';
import { collect, connectDevice, endAll, nextMessage, sleep } from '../../helpers/mqtt';
import { asDevice, expectError } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

/** Time given to a message that should not arrive, after a control subscriber has already seen it. */
const GRACE_MS = 300;

describe('PUT /v2/device/message', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('delivers the body to MQTT subscribers of @msg/{topic} in the group and replies 200', async () => {
    const [sender, receiver] = await aGroup(stack, 2);
    const mqtt = await connectDevice(stack.mqttUrl, receiver);
    try {
      await mqtt.subscribeAsync('@msg/home/+');
      const arrived = nextMessage(mqtt);

      const res = await asDevice(stack, sender)('PUT', '/v2/device/message/home/lamp', { body: 'ON' });

      expect(res.status).to.equal(200);
      expect(res.body.status).to.equal(200);
      expect(res.body.message).to.be.a('string').that.is.not.empty;
      expect(await arrived).to.deep.equal({ topic: '@msg/home/lamp', payload: 'ON' });
    } finally {
      await endAll(mqtt);
    }
  });

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

  it('passes the body on byte for byte, even when it is not text', async () => {
    const [sender, receiver] = await aGroup(stack, 2);
    const mqtt = await connectDevice(stack.mqttUrl, receiver);
    const bytes = Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x0a]);
    try {
      await mqtt.subscribeAsync('@msg/raw');
      const arrived = new Promise<Buffer>((resolve) => mqtt.once('message', (_topic, payload) => resolve(payload)));

      const res = await asDevice(stack, sender)('PUT', '/v2/device/message/raw', { body: bytes, contentType: 'application/octet-stream' });

      expect(res.status).to.equal(200);
      expect(Buffer.compare(await arrived, bytes)).to.equal(0);
    } finally {
      await endAll(mqtt);
    }
  });

  it('never delivers to a device of another group subscribed to the same topic', async () => {
    const [sender, sameGroup] = await aGroup(stack, 2);
    const otherGroup = await aDevice(stack, { projectid: sender.projectid });
    const otherProject = await aDevice(stack);
    const control = await connectDevice(stack.mqttUrl, sameGroup);
    const outsiders = [await connectDevice(stack.mqttUrl, otherGroup), await connectDevice(stack.mqttUrl, otherProject)];
    try {
      await control.subscribeAsync('@msg/home/lamp');
      const seenByOutsiders = outsiders.map((c) => collect(c));
      await Promise.all(outsiders.map((c) => c.subscribeAsync(['@msg/home/lamp', '@msg/#'])));
      const arrived = nextMessage(control);

      await asDevice(stack, sender)('PUT', '/v2/device/message/home/lamp', { body: 'ON' });
      await arrived;
      await sleep(GRACE_MS);

      expect(seenByOutsiders).to.deep.equal([[], []]);
    } finally {
      await endAll(control, ...outsiders);
    }
  });

  const badTopics: [string, string][] = [
    ['a + wildcard', '/v2/device/message/home/+'],
    ['a # wildcard', '/v2/device/message/home/%23'],
    ['a wildcard in ?topic=', '/v2/device/message?topic=home/%23'],
    ['an empty level', '/v2/device/message/home//lamp'],
    ['an empty level in ?topic=', '/v2/device/message?topic=home//lamp'],
    ['a trailing slash', '/v2/device/message/home/lamp/'],
    ['a trailing slash in ?topic=', '/v2/device/message?topic=home/lamp/'],
    ['a leading @', '/v2/device/message/@msg/home'],
    ['a leading @ in ?topic=', '/v2/device/message?topic=%40msg/home'],
    ['an empty ?topic=', '/v2/device/message?topic='],
    ['the topic both in the path and in ?topic=', '/v2/device/message/home/lamp?topic=home/lamp'],
    ['no topic at all', '/v2/device/message'],
    ['more than 32 levels', '/v2/device/message/' + Array(33).fill('l').join('/')],
    ['more than 512 bytes', '/v2/device/message/' + 'x'.repeat(520)],
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

  it('accepts a body of exactly 256 KiB and answers 413 PAYLOAD_TOO_LARGE for one byte more', async () => {
    const sender = await aDevice(stack);
    const client = asDevice(stack, sender);

    const atLimit = await client('PUT', '/v2/device/message/big', { body: Buffer.alloc(256 * 1024, 'a') });
    const overLimit = await client('PUT', '/v2/device/message/big', { body: Buffer.alloc(256 * 1024 + 1, 'a') });

    expect(atLimit.status).to.equal(200);
    expectError(overLimit, 413, 'PAYLOAD_TOO_LARGE');
  });

  for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=xyz']) {
    it(`answers 415 UNSUPPORTED_MEDIA_TYPE for a ${type.split(';')[0]} body`, async () => {
      const sender = await aDevice(stack);

      const res = await asDevice(stack, sender)('PUT', '/v2/device/message/home/lamp', { body: 'state=ON', contentType: type });

      expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    });
  }
});

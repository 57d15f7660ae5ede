import { expect } from 'chai';
import { DeviceTransport, expectDeviceError } from '../../helpers/device-transport';
import { aDevice, aGroup } from '../../helpers/devices';
import { collect, connectDevice, endAll, nextMessage, sleep } from '../../helpers/mqtt';
import { startStack, Stack } from '../../helpers/stack';

/** Time given to a message that should not arrive, after a control subscriber has already seen it. */
const GRACE_MS = 300;

/** Topics refused with INVALID_TOPIC whichever transport brings them; those only REST can send stay in rest/messages. */
const BAD_TOPICS: [string, string][] = [
  ['a + wildcard', 'home/+'],
  ['a # wildcard', 'home/#'],
  ['a leading @ other than @msg/', '@shadow/home'],
  ['@msg/ twice', '@msg/@msg/home'],
  ['no topic at all', ''],
  ['more than 32 levels', Array(33).fill('l').join('/')],
  ['more than 512 bytes', 'x'.repeat(520)],
];

/** Publishing to `@msg/{topic}` of the caller's group (spec 4.2, netpie reference §4): the same over every transport. */
export function messageScenarios(transport: DeviceTransport): void {
  describe('a message', () => {
    let stack: Stack;
    before(async () => {
      stack = await startStack();
    });
    after(() => stack.stop());

    it('reaches MQTT subscribers of @msg/{topic} in the group, and the reply names the topic', async () => {
      const [sender, receiver] = await aGroup(stack, 2);
      const mqtt = await connectDevice(stack.mqttUrl, receiver);
      try {
        await mqtt.subscribeAsync('@msg/home/+');
        const arrived = nextMessage(mqtt);

        const res = await transport.clientOf(stack, sender).publish('home/lamp', 'ON');

        expect(res.status, res.text).to.equal(200);
        expect(res.body).to.deep.equal({ message: 'published to @msg/home/lamp' });
        expect(await arrived).to.deep.equal({ topic: '@msg/home/lamp', payload: 'ON' });
      } finally {
        await endAll(mqtt);
      }
    });

    it('passes the payload on byte for byte, even when it is not text', async () => {
      const [sender, receiver] = await aGroup(stack, 2);
      const mqtt = await connectDevice(stack.mqttUrl, receiver);
      const bytes = Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x0a]);
      try {
        await mqtt.subscribeAsync('@msg/raw');
        const arrived = new Promise<Buffer>((resolve) => mqtt.once('message', (_topic, payload) => resolve(payload)));

        const res = await transport.clientOf(stack, sender).publish('raw', bytes);

        expect(res.status).to.equal(200);
        expect(Buffer.compare(await arrived, bytes)).to.equal(0);
      } finally {
        await endAll(mqtt);
      }
    });

    it('never reaches a device of another group or project, even one subscribed to the same topic', async () => {
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

        await transport.clientOf(stack, sender).publish('home/lamp', 'ON');
        await arrived;
        await sleep(GRACE_MS);

        expect(seenByOutsiders).to.deep.equal([[], []]);
      } finally {
        await endAll(control, ...outsiders);
      }
    });

    for (const [what, topic] of BAD_TOPICS) {
      it(`answers 400 INVALID_TOPIC for ${what} and publishes nothing`, async () => {
        const [sender, receiver] = await aGroup(stack, 2);
        const mqtt = await connectDevice(stack.mqttUrl, receiver);
        try {
          const seen = collect(mqtt);
          await mqtt.subscribeAsync('@msg/#');

          const res = await transport.clientOf(stack, sender).publish(topic, 'ON');
          await sleep(100);

          expectDeviceError(res, 400, 'INVALID_TOPIC');
          expect(seen).to.deep.equal([]);
        } finally {
          await endAll(mqtt);
        }
      });
    }

    it('passes a payload of exactly 256 KiB and answers 413 PAYLOAD_TOO_LARGE for one byte more, publishing nothing', async () => {
      const [sender, receiver] = await aGroup(stack, 2);
      const client = transport.clientOf(stack, sender);
      const mqtt = await connectDevice(stack.mqttUrl, receiver);
      try {
        await mqtt.subscribeAsync('@msg/#');
        const seen = collect(mqtt);

        const atLimit = await client.publish('big', Buffer.alloc(256 * 1024, 'a'));
        const overLimit = await client.publish('big', Buffer.alloc(256 * 1024 + 1, 'a'));
        await sleep(GRACE_MS);

        expect(atLimit.status).to.equal(200);
        expectDeviceError(overLimit, 413, 'PAYLOAD_TOO_LARGE');
        expect(seen.map(({ topic, payload }) => [topic, payload.length])).to.deep.equal([['@msg/big', 256 * 1024]]);
      } finally {
        await endAll(mqtt);
      }
    });
  });
}

import { expect } from 'chai';
import { aGroup } from '../../helpers/devices';
import { collect, connectDevice, endAll, nextMessage, sleep } from '../../helpers/mqtt';
import { asDevice, expectError } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

/** Time given to a message that should not arrive, after the rightful receiver has already seen it. */
const GRACE_MS = 300;

describe('PUT /v2/device/private', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  for (const [form, path] of [
    ['/private/{any}/{topic}', '/v2/device/private/cmd/reboot'],
    ['/private?topic=', '/v2/device/private?topic=cmd/reboot'],
  ]) {
    it(`delivers ${form} on @private/{topic} to the device whose credentials are used, and to no one else`, async () => {
      const [owner, neighbour] = await aGroup(stack, 2);
      const ownerMqtt = await connectDevice(stack.mqttUrl, owner);
      const neighbourMqtt = await connectDevice(stack.mqttUrl, neighbour);
      try {
        await ownerMqtt.subscribeAsync('@private/#');
        const seenByNeighbour = collect(neighbourMqtt);
        await neighbourMqtt.subscribeAsync(['@private/#', '@msg/#']);
        const arrived = nextMessage(ownerMqtt);

        const res = await asDevice(stack, owner)('PUT', path, { body: 'now' });
        const message = await arrived;
        await sleep(GRACE_MS);

        expect(res.status).to.equal(200);
        expect(res.body.status).to.equal(200);
        expect(res.body.message).to.be.a('string').that.is.not.empty;
        expect(message).to.deep.equal({ topic: '@private/cmd/reboot', payload: 'now' });
        expect(seenByNeighbour).to.deep.equal([]);
      } finally {
        await endAll(ownerMqtt, neighbourMqtt);
      }
    });
  }

  it('does not show up on @msg/{topic} for the group', async () => {
    const [owner, neighbour] = await aGroup(stack, 2);
    const ownerMqtt = await connectDevice(stack.mqttUrl, owner);
    const neighbourMqtt = await connectDevice(stack.mqttUrl, neighbour);
    try {
      const seen = [ownerMqtt, neighbourMqtt].map((c) => collect(c));
      await ownerMqtt.subscribeAsync(['@private/#', '@msg/#']);
      await neighbourMqtt.subscribeAsync('@msg/#');
      const arrived = nextMessage(ownerMqtt);

      await asDevice(stack, owner)('PUT', '/v2/device/private/cmd/reboot', { body: 'now' });
      await arrived;
      await sleep(GRACE_MS);

      expect(seen.flat().map((m) => m.topic)).to.deep.equal(['@private/cmd/reboot']);
    } finally {
      await endAll(ownerMqtt, neighbourMqtt);
    }
  });

  for (const [what, path] of [
    ['a wildcard', '/v2/device/private/cmd/+'],
    ['an empty level', '/v2/device/private/cmd//reboot'],
    ['a leading @ other than @private/', '/v2/device/private/@msg/cmd'],
    ['the topic in the path and in ?topic=', '/v2/device/private/cmd?topic=cmd'],
    ['no topic', '/v2/device/private'],
  ]) {
    it(`answers 400 INVALID_TOPIC for ${what}`, async () => {
      const [owner] = await aGroup(stack, 1);

      const res = await asDevice(stack, owner)('PUT', path, { body: 'now' });

      expectError(res, 400, 'INVALID_TOPIC');
    });
  }

  it('answers 413 PAYLOAD_TOO_LARGE for a body over 256 KiB', async () => {
    const [owner] = await aGroup(stack, 1);

    const res = await asDevice(stack, owner)('PUT', '/v2/device/private/big', { body: Buffer.alloc(256 * 1024 + 1, 'a') });

    expectError(res, 413, 'PAYLOAD_TOO_LARGE');
  });
});

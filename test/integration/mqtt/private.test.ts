import { expect } from 'chai';
import { aGroup } from '../../helpers/devices';
import { collect, connectDevice, endAll, nextMessage, sleep } from '../../helpers/mqtt';
import { startStack, Stack } from '../../helpers/stack';

describe('@private messages (PUT /v2/device/private/{topic})', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('arrive at the device whose credentials were used, on @private/# and on the exact topic', async () => {
    const [device] = await aGroup(stack, 1);
    const client = await connectDevice(stack.mqttUrl, device);
    try {
      await client.subscribeAsync(['@private/#', '@private/x/y']);
      const seen = collect(client);

      const arrived = nextMessage(client);
      const res = await stack.http('PUT', '/v2/device/private/x/y', { body: 'for me', headers: { authorization: device.auth } });
      expect(res.status).to.equal(200);
      await arrived;
      await sleep(200);

      // One delivery per matching subscription, or one in all: aedes may do either [MQTT-3.3.5-1].
      expect(seen).to.not.be.empty;
      for (const message of seen) expect(message).to.deep.equal({ topic: '@private/x/y', payload: 'for me' });
    } finally {
      await endAll(client);
    }
  });

  it('never reach another device of the same group, even one subscribed to @private/# and @msg/#', async () => {
    const [recipient, groupmate] = await aGroup(stack, 2);
    const [mine, theirs] = [await connectDevice(stack.mqttUrl, recipient), await connectDevice(stack.mqttUrl, groupmate)];
    try {
      await mine.subscribeAsync('@private/#');
      await theirs.subscribeAsync(['@private/#', '@msg/#']);
      const seenByGroupmate = collect(theirs);
      const arrived = nextMessage(mine);

      const res = await stack.http('PUT', '/v2/device/private/x/y', { body: 'secret', headers: { authorization: recipient.auth } });
      expect(res.status).to.equal(200);

      expect(await arrived).to.deep.equal({ topic: '@private/x/y', payload: 'secret' });
      await sleep(300);
      expect(seenByGroupmate).to.deep.equal([]);
    } finally {
      await endAll(mine, theirs);
    }
  });

  it('are not delivered to a subscriber of @msg/# of the same device', async () => {
    const [device] = await aGroup(stack, 1);
    const client = await connectDevice(stack.mqttUrl, device);
    try {
      await client.subscribeAsync(['@msg/#', '@private/marker']);
      const seen = collect(client);

      const marked = nextMessage(client, (t) => t === '@private/marker');
      await stack.http('PUT', '/v2/device/private/x/y', { body: 'private', headers: { authorization: device.auth } });
      await stack.http('PUT', '/v2/device/private/marker', { body: 'end', headers: { authorization: device.auth } });
      await marked;
      await sleep(100);

      expect(seen).to.deep.equal([{ topic: '@private/marker', payload: 'end' }]);
    } finally {
      await endAll(client);
    }
  });
});

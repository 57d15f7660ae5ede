import { expect } from 'chai';
import { aGroup } from '../helpers/devices';
import { connectDevice, endAll, nextMessage } from '../helpers/mqtt';
import { startStack, Stack } from '../helpers/stack';

describe('a message published over REST', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('reaches an MQTT subscriber of the same group on @msg/{topic}', async () => {
    const [sender, receiver] = await aGroup(stack, 2);
    const client = await connectDevice(stack.mqttUrl, receiver);
    try {
      await client.subscribeAsync('@msg/home/#');
      const arrived = nextMessage(client);
      const res = await stack.http('PUT', '/v2/device/message/home/lamp', { body: 'ON', headers: { authorization: sender.auth } });
      expect(res.status).to.equal(200);
      expect(await arrived).to.deep.equal({ topic: '@msg/home/lamp', payload: 'ON' });
    } finally {
      await endAll(client);
    }
  });
});
